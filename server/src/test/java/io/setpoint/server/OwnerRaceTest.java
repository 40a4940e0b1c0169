package io.setpoint.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.setpoint.api.v1.Fence;
import io.setpoint.api.v1.Resource;
import io.setpoint.api.v1.Tenancy;
import io.setpoint.demo.DemoTypes;
import io.setpoint.resource.ValidationException;
import io.setpoint.storage.Backend.Page;
import io.setpoint.storage.Backend;
import io.setpoint.storage.Consistency;
import io.setpoint.storage.ForwardingBackend;
import io.setpoint.storage.memory.MemoryBackend;
import org.junit.jupiter.api.Test;

/**
 * A child created while its owner is being deleted: the owner passes the check before the create,
 * then its delete and cascade run before the child is stored. The child must not stay behind.
 */
class OwnerRaceTest {
  private final MemoryBackend store = new MemoryBackend();
  private final OwnerDeletedBeforeCreate racing = new OwnerDeletedBeforeCreate(store);
  private final ResourceHandler handler = DemoHandlers.over(racing);

  @Test
  void aChildStoredAfterItsOwnerWasDeletedIsTakenBackAndTheWriteFails() {
    Resource artist = write(DemoHandlers.nina());
    Resource album = DemoHandlers.albumOf(artist.getId());
    racing.deleteOwnerBeforeNextCreate = true;

    assertThatThrownBy(() -> write(album))
        .isInstanceOfSatisfying(ValidationException.class, e ->
            assertThat(e.getMessage()).contains("resource.owner").contains("was deleted"));

    assertThat(store.listByOwner(artist.getId())).isEmpty();
    Page albums = store.list(Consistency.STRONG, DemoTypes.ALBUM, Tenancy.newBuilder().setPartition("*").setNamespace("*").build(), "", 0, "");
    assertThat(albums.resources()).isEmpty();
  }

  @Test
  void withoutTheRaceTheChildIsCreated() {
    Resource artist = write(DemoHandlers.nina());

    Resource album = write(DemoHandlers.albumOf(artist.getId()));

    assertThat(store.listByOwner(artist.getId())).containsExactly(album);
  }

  private Resource write(Resource resource) {
    return DemoHandlers.write(handler, resource);
  }


  /** A store in which an owner's delete lands between the create's owner check and its write. */
  private static final class OwnerDeletedBeforeCreate extends ForwardingBackend {
    private final Backend delegate;
    boolean deleteOwnerBeforeNextCreate;

    OwnerDeletedBeforeCreate(Backend delegate) {
      super(delegate);
      this.delegate = delegate;
    }

    @Override
    public Resource writeCas(Resource resource, Fence fence) {
      if (deleteOwnerBeforeNextCreate && resource.hasOwner() && resource.getVersion().isEmpty()) {
        deleteOwnerBeforeNextCreate = false;
        delegate.deleteCas(resource.getOwner(), "");
      }
      return super.writeCas(resource, fence);
    }
  }
}
