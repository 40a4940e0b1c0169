package io.setpoint.storage.raft;

import java.util.EnumSet;
import java.util.concurrent.Executor;
import org.apache.ratis.grpc.server.GrpcServices;
import org.apache.ratis.proto.grpc.RaftServerProtocolServiceGrpc;
import org.apache.ratis.thirdparty.io.grpc.Metadata;
import org.apache.ratis.thirdparty.io.grpc.ServerCall;
import org.apache.ratis.thirdparty.io.grpc.ServerCallExecutorSupplier;
import org.apache.ratis.thirdparty.io.grpc.netty.NettyServerBuilder;

/**
 * A member takes the leader's appends on the connection's I/O thread. gRPC hands every message of
 * a call to its shared executor by default, which on a follower wakes one more thread per
 * replication round, on the write's path. Handling an append only checks it and queues its
 * entries for the log worker (and, the first time a new leader's term is seen, records that term
 * in the member's metadata file); the reply goes out once the log worker has written them. Every
 * other call of Ratis's transport keeps the executor: a vote writes and syncs the member's
 * metadata, a snapshot copies files.
 *
 * <p>gRPC asks for a call's executor only once it has looked the call up, and it does that on its
 * own executor; that thread starts the call and also runs the messages that arrived meanwhile
 * (often a stream's first heartbeat) before it lets go. Every message after those runs on the I/O
 * thread.
 */
final class InlineAppends implements GrpcServices.Customizer, ServerCallExecutorSupplier {
  private static final String APPEND_ENTRIES =
      RaftServerProtocolServiceGrpc.getAppendEntriesMethod().getFullMethodName();
  private static final Executor INLINE = Runnable::run;

  @Override
  public NettyServerBuilder customize(NettyServerBuilder builder, EnumSet<GrpcServices.Type> types) {
    if (!types.contains(GrpcServices.Type.SERVER)) {
      return builder;
    }
    return builder.callExecutor(this);
  }

  /** The executor of one call: {@code null} for the server's own. */
  @Override
  public <Q, A> Executor getExecutor(ServerCall<Q, A> call, Metadata headers) {
    return APPEND_ENTRIES.equals(call.getMethodDescriptor().getFullMethodName()) ? INLINE : null;
  }
}
