package io.setpoint.resource;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;

/**
 * How a type authorizes reads, writes and lists. Each hook throws {@link
 * PermissionDeniedException} to refuse. {@link #operator()} (the default) requires {@code
 * operator:read} to read or list and {@code operator:write} to write.
 */
public record AclHooks(Read read, Write write, List list) {
  /** Authorizes reading one resource; {@code resource} is null when it was not found. */
  @FunctionalInterface
  public interface Read {
    void check(Authorizer authz, ID id, Resource resource) throws PermissionDeniedException;
  }

  /** Authorizes writing (or deleting) one resource. */
  @FunctionalInterface
  public interface Write {
    void check(Authorizer authz, Resource resource) throws PermissionDeniedException;
  }

  /** Authorizes listing a type in a tenancy (which may hold wildcards). */
  @FunctionalInterface
  public interface List {
    void check(Authorizer authz, Type type, Tenancy tenancy) throws PermissionDeniedException;
  }

  /** The hooks used when a registration gives none: operator permissions. */
  public static AclHooks operator() {
    return new AclHooks(
        (authz, id, res) ->
            authz.require(Permission.OPERATOR_READ, id.getType(), id.getTenancy(), id.getName()),
        (authz, res) ->
            authz.require(
                Permission.OPERATOR_WRITE,
                res.getId().getType(),
                res.getId().getTenancy(),
                res.getId().getName()),
        (authz, type, tenancy) -> authz.require(Permission.OPERATOR_READ, type, tenancy, ""));
  }

  /** Hooks that check the per-type {@code read}, {@code write} and {@code list} permissions. */
  public static AclHooks perType() {
    return new AclHooks(
        (authz, id, res) -> authz.require(Permission.READ, id.getType(), id.getTenancy(), id.getName()),
        (authz, res) ->
            authz.require(
                Permission.WRITE, res.getId().getType(), res.getId().getTenancy(), res.getId().getName()),
        (authz, type, tenancy) -> authz.require(Permission.LIST, type, tenancy, ""));
  }
}
