package io.setpoint.storage.raft;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.setpoint.storage.StorageException;
import io.setpoint.storage.raft.v1.BatchReply;
import io.setpoint.storage.raft.v1.Failure;
import io.setpoint.storage.raft.v1.ForwardAnswer;
import io.setpoint.storage.raft.v1.ForwardCall;
import java.io.InputStream;
import org.apache.ratis.thirdparty.io.grpc.MethodDescriptor;
import org.apache.ratis.thirdparty.io.grpc.ServerServiceDefinition;
import org.apache.ratis.thirdparty.io.grpc.Status;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCallStreamObserver;
import org.apache.ratis.thirdparty.io.grpc.stub.ServerCalls;
import org.apache.ratis.thirdparty.io.grpc.stub.StreamObserver;

/**
 * The leader's end of the forward stream: a bidirectional method on Raft's own gRPC server, on
 * which each other member keeps one stream open to send its batches of writes ({@link
 * ForwardCall}) and get each one's answer as soon as it is committed ({@link ForwardAnswer}), in any
 * order. A Ratis client request per batch cost a new HTTP/2 stream and two executor hand-offs on the
 * leader, plus a blocked thread on the member that forwarded it. The other end is {@link
 * ForwardClient}.
 *
 * <p>Every member serves it: a member that does not lead answers a batch with {@code turned_away}.
 */
final class ForwardService {
  private static final String SERVICE = "setpoint.storage.raft.v1.Forwarding";

  /** The stream's one method. */
  static final MethodDescriptor<ForwardCall, ForwardAnswer> FORWARD =
      MethodDescriptor.<ForwardCall, ForwardAnswer>newBuilder()
          .setType(MethodDescriptor.MethodType.BIDI_STREAMING)
          .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, "Forward"))
          .setRequestMarshaller(new ProtoMarshaller<>(ForwardCall.parser()))
          .setResponseMarshaller(new ProtoMarshaller<>(ForwardAnswer.parser()))
          .build();

  private final ForwardedWrites forwarded;

  ForwardService(ForwardedWrites forwarded) {
    this.forwarded = forwarded;
  }

  /** What Raft's server registers (see {@link RatisSettings#parameters}). */
  ServerServiceDefinition definition() {
    return ServerServiceDefinition.builder(SERVICE)
        .addMethod(FORWARD, ServerCalls.asyncBidiStreamingCall(answers -> new Stream((ServerCallStreamObserver<ForwardAnswer>) answers)))
        .build();
  }

  /** One member's stream: answers go out as their batches settle, from whichever thread settles them. */
  private final class Stream implements StreamObserver<ForwardCall> {
    private final ServerCallStreamObserver<ForwardAnswer> answers;
    /** Guarded by {@code this}, as is every call on {@link #answers}, which is not thread-safe. */
    private int unanswered;
    private boolean halfClosed;
    private boolean gone;

    Stream(ServerCallStreamObserver<ForwardAnswer> answers) {
      this.answers = answers;
      // The member went away: the batches it sent still commit, their answers go nowhere.
      answers.setOnCancelHandler(() -> {
        synchronized (this) {
          gone = true;
        }
      });
    }

    @Override
    public void onNext(ForwardCall call) {
      synchronized (this) {
        unanswered++;
      }
      long id = call.getId();
      forwarded.commit(call.getForward()).whenComplete((reply, failure) -> send(answerTo(id, reply, failure)));
    }

    private void send(ForwardAnswer answer) {
      synchronized (this) {
        unanswered--;
        if (gone) {
          return;
        }
        answers.onNext(answer);
        if (halfClosed && unanswered == 0) {
          answers.onCompleted();
        }
      }
    }

    @Override
    public void onError(Throwable t) {
      synchronized (this) {
        gone = true;
      }
    }

    /** The member moved to another leader: its stream ends once every batch on it is answered. */
    @Override
    public synchronized void onCompleted() {
      halfClosed = true;
      if (unanswered == 0 && !gone) {
        answers.onCompleted();
      }
    }
  }

  private static ForwardAnswer answerTo(long id, BatchReply reply, Throwable failure) {
    ForwardAnswer.Builder answer = ForwardAnswer.newBuilder().setId(id);
    if (failure == null) {
      return answer.setReply(reply).build();
    }
    Throwable cause = RaftErrors.unwrap(failure);
    if (cause instanceof ForwardedWrites.TurnedAway away) {
      return answer.setTurnedAway(away.getMessage()).build();
    }
    StorageException refused = cause instanceof StorageException e
        ? e
        : RaftErrors.mayStillBeApplied(String.valueOf(cause));
    return answer.setFailure(Failure.newBuilder().setReason(refused.reason().name()).setMessage(refused.getMessage())).build();
  }

  /** Our (unshaded) protobuf messages on Ratis's shaded gRPC. */
  private record ProtoMarshaller<T extends MessageLite>(Parser<T> parser) implements MethodDescriptor.Marshaller<T> {
    @Override
    public InputStream stream(T value) {
      return value.toByteString().newInput();
    }

    @Override
    public T parse(InputStream stream) {
      try {
        return parser.parseFrom(stream);
      } catch (InvalidProtocolBufferException e) {
        throw Status.INTERNAL.withDescription("unreadable forward message: " + e.getMessage()).withCause(e).asRuntimeException();
      }
    }
  }
}
