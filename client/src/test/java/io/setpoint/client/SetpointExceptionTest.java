package io.setpoint.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Status;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/** Each predicate of {@link SetpointException} answers true for its codes and for no other. */
class SetpointExceptionTest {
  private static void assertTrueExactlyFor(Predicate<SetpointException> predicate, Set<Status.Code> codes) {
    for (Status.Code code : Status.Code.values()) {
      SetpointException e = SetpointException.from(code.toStatus().withDescription("why").asRuntimeException(), "test");
      assertThat(predicate.test(e)).as("%s", code).isEqualTo(codes.contains(code));
      assertThat(e.code()).isEqualTo(code);
    }
  }

  @Test
  void eachPredicateNamesItsCodes() {
    assertTrueExactlyFor(SetpointException::isNotFound, EnumSet.of(Status.Code.NOT_FOUND));
    assertTrueExactlyFor(SetpointException::isAlreadyExists, EnumSet.of(Status.Code.ALREADY_EXISTS));
    assertTrueExactlyFor(SetpointException::isConflict, EnumSet.of(Status.Code.ABORTED));
    assertTrueExactlyFor(SetpointException::isRetryable, EnumSet.of(Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED));
  }
}
