package io.setpoint.resource;

import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;

/**
 * How a type authorizes reads, writes and lists: each hook asks the request's {@link Authorizer}
 * whether the caller holds a {@link Permission}, and throws {@link PermissionDeniedException} to
 * refuse. {@link #operator()} (the default) requires {@code operator:read} to read or list and
 * {@code operator:write} to write; {@link #perType()} the type's own {@code read}, {@code write}
 * and {@code list}.
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

  /**
   * Authorizes listing a type in a tenancy (which may hold wildcards). The server also asks it for
   * each item of a listing or watch, with the item's own tenancy, and leaves out the items it
   * refuses.
   */
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

  /**
   * Answers whether the caller of a request holds a permission. ACL hooks ask it; the server builds
   * one per request from the caller's token (or {@link #allowAll()} when ACLs are off).
   *
   * <p>The server's token-backed authorizers answer from the live ACL state, and throw an
   * unchecked {@code UNAUTHENTICATED} status exception once their token has been deleted: hooks
   * should let it pass (they only ever need to throw {@link PermissionDeniedException}).
   */
  @FunctionalInterface
  public interface Authorizer {
    /**
     * True when the caller holds {@code permission} on resources of {@code type} in {@code tenancy}
     * named {@code name}. For {@link Permission#LIST} the name is empty, and a tenancy with
     * wildcards is allowed when the caller may list some of it (its items are then checked one by
     * one); for the operator permissions type, tenancy and name are ignored.
     */
    boolean allowed(Permission permission, Type type, Tenancy tenancy, String name);

    /** Grants everything: ACLs disabled, or the server's own identity. */
    static Authorizer allowAll() {
      return (permission, type, tenancy, name) -> true;
    }

    /**
     * Throws {@link PermissionDeniedException} naming {@code permission} unless it is allowed.
     */
    default void require(Permission permission, Type type, Tenancy tenancy, String name) {
      if (!allowed(permission, type, tenancy, name)) {
        throw new PermissionDeniedException(permission, type, tenancy, name);
      }
    }
  }

  /** What a caller may be allowed to do. */
  public enum Permission {
    READ("read"),
    WRITE("write"),
    LIST("list"),
    OPERATOR_READ("operator:read"),
    OPERATOR_WRITE("operator:write");

    private final String label;

    Permission(String label) {
      this.label = label;
    }

    /** The name policies and error messages use, e.g. {@code operator:read}. */
    public String label() {
      return label;
    }
  }
}
