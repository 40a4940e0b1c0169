package io.setpoint.controller;

import com.google.protobuf.Any;
import io.setpoint.api.Resources;
import io.setpoint.api.v1.ID;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.api.v1.Type;
import java.util.HashMap;

/**
 * Makes cached resources share one object for each distinct type, tenancy and data type URL. A
 * watch decodes every resource anew, and those small repeated parts are close to half of what a
 * decoded resource weighs. A resource whose parts are already the shared ones is kept as is, so
 * resources that reach the cache without decoding (over the in-process transport) are not copied.
 * Used by one informer thread.
 */
final class Interner {
  private final HashMap<Type, Type> types = new HashMap<>();
  private final HashMap<Tenancy, Tenancy> tenancies = new HashMap<>();
  private final HashMap<String, String> typeUrls = new HashMap<>();

  Resource intern(Resource resource) {
    ID id = resource.getId();
    Type type = types.computeIfAbsent(id.getType(), t -> t);
    Tenancy tenancy = tenancies.computeIfAbsent(id.getTenancy(), t -> t);
    Any data = resource.getData();
    String typeUrl = typeUrls.computeIfAbsent(data.getTypeUrl(), u -> u);
    boolean sameId = type == id.getType() && tenancy == id.getTenancy();
    boolean sameData = typeUrl == data.getTypeUrl();
    if (sameId && sameData) {
      return resource;
    }
    return Resources.with(
        resource,
        sameId ? id : id.toBuilder().setType(type).setTenancy(tenancy).build(),
        resource.getVersion(),
        !resource.hasData() ? null
            : sameData ? data : Any.newBuilder().setTypeUrl(typeUrl).setValue(data.getValue()).build());
  }
}
