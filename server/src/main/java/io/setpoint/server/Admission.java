package io.setpoint.server;

import com.google.protobuf.Any;
import io.setpoint.api.Resources;
import io.setpoint.api.v1.Resource;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.ValidationException;

/**
 * The admission path of every write: check the envelope, run the type's mutate and validate hooks,
 * authorize the result and bound its size, before anything is read from or written to the store.
 */
final class Admission {
  private final RequestValidator validator;
  private final ServiceLimits limits;

  Admission(RequestValidator validator, ServiceLimits limits) {
    this.validator = validator;
    this.limits = limits;
  }

  /** Validate the envelope, mutate, validate, authorize: the resource as the write would store it. */
  Resource admit(Authorizer authz, boolean present, Resource raw) {
    Resource resource = validator.resource("resource", present, raw);
    Registration<?> reg = validator.registration(resource.getId());
    Any data = RequestValidator.data("resource.data", reg, resource.hasData(), resource.getData());
    if (data != resource.getData()) {
      resource = Resources.with(resource, resource.getId(), resource.getVersion(), data);
    }
    Resource mutated;
    try {
      mutated = reg.mutate().mutate(resource);
    } catch (ValidationException e) {
      throw e.under("resource");
    }
    if (!mutated.getId().equals(resource.getId()) || !mutated.getOwner().equals(resource.getOwner())
        || !mutated.getVersion().equals(resource.getVersion())) {
      throw new IllegalStateException(
          "the mutate hook of " + reg.dataMessageName() + " changed the id, owner or version of a resource");
    }
    // A hook that re-packed the data may have encoded it differently: canonicalize it again, so
    // equal data has equal bytes. Data the hook left alone is canonical already.
    if (mutated.getData() != resource.getData()) {
      mutated = mutated.toBuilder()
          .setData(RequestValidator.data("resource.data", reg, mutated.hasData(), mutated.getData()))
          .build();
    }
    try {
      reg.validate().validate(mutated);
    } catch (ValidationException e) {
      throw e.under("resource");
    }
    reg.acls().write().check(authz, mutated);
    checkSize(mutated);
    return mutated;
  }

  /** Refuses a resource that encodes to more than the limits allow. */
  void checkSize(Resource resource) {
    int size = resource.getSerializedSize();
    if (size > limits.maxResourceBytes()) {
      throw Errors.tooLarge(
          "resource: encodes to " + size + " bytes; at most " + limits.maxResourceBytes() + " are allowed");
    }
  }
}
