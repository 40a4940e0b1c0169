package io.setpoint.server;

import io.setpoint.api.Shards;
import io.setpoint.api.v1.HashRange;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.ListByOwnerRequest;
import io.setpoint.api.v1.ListByOwnerResponse;
import io.setpoint.api.v1.ListRequest;
import io.setpoint.api.v1.ListResponse;
import io.setpoint.api.v1.ReadRequest;
import io.setpoint.api.v1.ReadResponse;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.WatchListRequest;
import io.setpoint.resource.AclHooks;
import io.setpoint.resource.AclHooks.Authorizer;
import io.setpoint.resource.Registration;
import io.setpoint.resource.Registry;
import io.setpoint.resource.Violations;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend.WatchCursor;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.StorageException;
import java.util.ArrayList;
import java.util.List;

/**
 * The read side of the resource service: Read, List (by hash range too), ListByOwner and
 * WatchList, each answering with only the resources the caller may read.
 */
final class ResourceReads {
  /** How many pages' worth of resources a List by hash range may read to fill one page. */
  private static final int SHARD_SCAN_PAGES = 16;

  private final Registry registry;
  private final Backend backend;
  private final RequestValidator validator;
  private final ServiceLimits limits;
  private final PageTokens pageTokens;

  ResourceReads(Registry registry, Backend backend, RequestValidator validator, ServiceLimits limits, PageTokens pageTokens) {
    this.registry = registry;
    this.backend = backend;
    this.validator = validator;
    this.limits = limits;
    this.pageTokens = pageTokens;
  }

  ReadResponse read(Authorizer authz, ReadRequest req) {
    ID id = validator.id("id", req.hasId(), req.getId(), false);
    Registration<?> reg = validator.registration(id);
    Resource resource;
    try {
      resource = backend.read(consistency(req.getConsistent()), id);
    } catch (StorageException e) {
      // Not found, or stored under another group version: either tells whether the name exists.
      reg.acls().read().check(authz, id, null);
      throw e;
    }
    reg.acls().read().check(authz, id, resource);
    return ReadResponse.newBuilder().setResource(resource).build();
  }

  ListResponse list(Authorizer authz, ListRequest req) {
    Registration<?> reg = validator.type("type", req.hasType(), req.getType());
    Violations v = Violations.at("");
    Tenancy tenancy = validator.tenancy(v.field("tenancy"), req.getTenancy(), reg, true);
    RequestValidator.namePrefix(v, "name_prefix", req.getNamePrefix());
    RequestValidator.hashRanges(v, "hash_ranges", req.getHashRangesList());
    // page_size is a uint32: compare unsigned, so 4294967295 is too large rather than negative.
    if (Integer.compareUnsigned(req.getPageSize(), limits.maxPageSize()) > 0) {
      v.add("page_size", "max", "must be at most " + limits.maxPageSize());
    }
    v.throwIfAny();
    reg.acls().list().check(authz, req.getType(), tenancy);
    int pageSize = req.getPageSize() == 0 ? limits.defaultPageSize() : req.getPageSize();
    String token = pageTokens.open(req.getPageToken(), req.getType(), tenancy, req.getNamePrefix());
    Page page = backend.list(
        consistency(req.getConsistent()), req.getType(), tenancy, req.getNamePrefix(), pageSize, token);
    List<Resource> inShard = page.resources();
    if (req.getHashRangesCount() > 0) {
      // A shard's listing reads on (at the same revision) until its page is full, so listing a
      // third of a type takes a third of the pages, not all of them; bounded per request.
      inShard = new ArrayList<>(inRanges(page.resources(), req.getHashRangesList()));
      int scanned = page.resources().size();
      while (inShard.size() < pageSize && !page.nextPageToken().isEmpty() && scanned < pageSize * SHARD_SCAN_PAGES) {
        page = backend.list(consistency(req.getConsistent()), req.getType(), tenancy, req.getNamePrefix(),
            pageSize - inShard.size(), page.nextPageToken());
        inShard.addAll(inRanges(page.resources(), req.getHashRangesList()));
        scanned += page.resources().size();
      }
    }
    return ListResponse.newBuilder()
        .addAllResources(Disclosure.listable(authz, reg, inShard))
        .setNextPageToken(pageTokens.seal(page.nextPageToken(), req.getType(), tenancy, req.getNamePrefix()))
        .setRevision(page.revision())
        .build();
  }

  private static List<Resource> inRanges(List<Resource> resources, List<HashRange> ranges) {
    return resources.stream().filter(r -> Shards.contains(ranges, r.getId())).toList();
  }

  ListByOwnerResponse listByOwner(Authorizer authz, ListByOwnerRequest req) {
    ID owner = validator.id("owner", req.hasOwner(), req.getOwner(), true);
    Violations v = Violations.at("");
    if (Integer.compareUnsigned(req.getPageSize(), limits.maxPageSize()) > 0) {
      v.add("page_size", "max", "must be at most " + limits.maxPageSize());
    }
    String after = OwnedPages.after(v, req.getPageToken(), owner);
    v.throwIfAny();
    int pageSize = req.getPageSize() == 0 ? limits.defaultPageSize() : req.getPageSize();
    ListByOwnerResponse.Builder out = ListByOwnerResponse.newBuilder();
    List<Resource> readable = new ArrayList<>();
    for (Resource child : backend.listByOwner(owner)) {
      registry.resolve(child.getId().getType()).ifPresent(reg -> {
        if (Disclosure.canRead(authz, reg, child)) {
          readable.add(child);
        }
      });
    }
    OwnedPages.Page page = OwnedPages.page(readable, after, pageSize);
    return out.addAllResources(page.resources()).setNextPageToken(page.last() == null ? "" : OwnedPages.token(owner, page.last()))
        .build();
  }

  /**
   * Opens a watch. The returned {@link FilteredWatch} drops events the caller may not read or
   * list in their tenancy, and fails once the caller may no longer list the type there at all.
   */
  FilteredWatch watchList(Authorizer authz, WatchListRequest req) {
    Registration<?> reg = validator.type("type", req.hasType(), req.getType());
    Violations v = Violations.at("");
    Tenancy tenancy = validator.tenancy(v.field("tenancy"), req.getTenancy(), reg, true);
    RequestValidator.namePrefix(v, "name_prefix", req.getNamePrefix());
    RequestValidator.hashRanges(v, "hash_ranges", req.getHashRangesList());
    v.throwIfAny();
    AclHooks.List mayList = reg.acls().list();
    mayList.check(authz, req.getType(), tenancy);
    WatchCursor watch = backend.watch(req.getType(), tenancy, req.getNamePrefix(), req.getSinceRevision());
    // Asked again while the watch runs: a revoked token or a narrowed policy ends it.
    List<HashRange> ranges = req.getHashRangesList();
    return new FilteredWatch(watch, resource -> Shards.contains(ranges, resource.getId()) && Disclosure.canList(authz, reg, resource),
        () -> mayList.check(authz, req.getType(), tenancy));
  }

  private static Consistency consistency(boolean consistent) {
    return consistent ? Consistency.STRONG : Consistency.EVENTUAL;
  }
}
