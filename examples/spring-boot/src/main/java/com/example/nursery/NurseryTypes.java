package com.example.nursery;

import com.example.nursery.v1.Seedling;
import io.setpoint.api.Types;
import io.setpoint.api.v1.Type;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import java.util.function.Consumer;

/**
 * The nursery's resource type. The agent serves it: in production apply it once with {@code
 * setpoint type apply -f src/main/proto/acme/nursery/v1/nursery.proto}; in tests {@link Registrar}
 * registers it in the in-memory agent of {@code @SetpointTest}.
 */
public final class NurseryTypes {
  /** A seedling, namespace-scoped. */
  public static final Type SEEDLING = Types.of("nursery", "v1", "Seedling");

  private NurseryTypes() {}

  /** Registers the seedling type, as an agent that serves it does. */
  public static final class Registrar implements Consumer<Registry> {
    @Override
    public void accept(Registry registry) {
      registry.register(Registration.of(SEEDLING, Seedling.class).acls(AclHooks.perType()).build());
    }
  }
}
