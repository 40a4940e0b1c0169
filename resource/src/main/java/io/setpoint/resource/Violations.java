package io.setpoint.resource;

import io.setpoint.api.Echo;
import io.setpoint.resource.ValidationException.FieldViolation;
import java.util.ArrayList;
import java.util.List;

/**
 * Collects {@link FieldViolation}s while walking a message, keeping track of the field path.
 *
 * <pre>{@code
 * Violations v = Violations.at("data");
 * if (artist.getName().isEmpty()) v.add("name", "required", "must not be empty");
 * for (int i = 0; i < artist.getTracksCount(); i++) {
 *   Violations track = v.index("tracks", i);   // data.tracks[i]
 *   ...
 * }
 * v.throwIfAny();
 * }</pre>
 */
public final class Violations {
  private final String path;
  private final List<FieldViolation> found;

  private Violations(String path, List<FieldViolation> found) {
    this.path = path;
    this.found = found;
  }

  /** An empty collector whose paths start at {@code root} (for example {@code data}). */
  public static Violations at(String root) {
    return new Violations(root, new ArrayList<>());
  }

  /** A view that records under {@code path.name}, sharing this collector's findings. */
  public Violations field(String name) {
    return new Violations(join(name), found);
  }

  /** A view that records under {@code path.name[index]}, sharing this collector's findings. */
  public Violations index(String name, int index) {
    return new Violations(join(name) + "[" + index + "]", found);
  }

  /** A view that records under {@code path.name["key"]}, sharing this collector's findings. */
  public Violations key(String name, String key) {
    return new Violations(join(name) + "[" + Echo.quote(key) + "]", found);
  }

  /** Records a violation of this path itself. */
  public Violations add(String rule, String message) {
    found.add(new FieldViolation(path, rule, message));
    return this;
  }

  /** Records a violation of {@code path.field}. */
  public Violations add(String field, String rule, String message) {
    found.add(new FieldViolation(join(field), rule, message));
    return this;
  }

  /** Records {@code required} for {@code field} when {@code value} is empty. */
  public Violations requireNonEmpty(String field, String value) {
    if (value.isEmpty()) {
      add(field, "required", "must not be empty");
    }
    return this;
  }

  /** True when nothing was found so far (anywhere in this collector). */
  public boolean isEmpty() {
    return found.isEmpty();
  }

  /** Everything found so far. */
  public List<FieldViolation> list() {
    return List.copyOf(found);
  }

  /** Throws a {@link ValidationException} holding everything found, if anything was. */
  public void throwIfAny() {
    if (!found.isEmpty()) {
      throw new ValidationException(found);
    }
  }

  /** The field path this view records under. */
  public String path() {
    return path;
  }

  private String join(String name) {
    if (name.isEmpty()) {
      return path;
    }
    return path.isEmpty() ? name : path + "." + name;
  }
}
