package io.setpoint.demo.loops;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_DELETE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;

import io.setpoint.controller.loop.Loop.Change;
import io.setpoint.controller.source.Source;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Path;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.function.Consumer;

/**
 * The real-time half of a directory's {@link io.setpoint.controller.loop.Loop.ListerWatcher}: the
 * names of files created, modified and deleted, from a {@link WatchService}. It may lag or
 * overflow; the loop's lists catch whatever it misses.
 */
final class DirectoryWatch implements Source<Change<String>> {
  private final Path dir;

  DirectoryWatch(Path dir) {
    this.dir = dir;
  }

  @Override
  public AutoCloseable start(Consumer<Change<String>> sink) throws Exception {
    WatchService service = dir.getFileSystem().newWatchService();
    dir.register(service, ENTRY_CREATE, ENTRY_MODIFY, ENTRY_DELETE);
    Thread.ofVirtual().name("directory-watch-" + dir.getFileName()).start(() -> pump(service, sink));
    return service; // closing it ends the pump
  }

  private static void pump(WatchService service, Consumer<Change<String>> sink) {
    try {
      while (true) {
        WatchKey key = service.take();
        for (WatchEvent<?> event : key.pollEvents()) {
          if (event.context() instanceof Path name) {
            String file = name.toString();
            if (event.kind() == ENTRY_CREATE) {
              sink.accept(Change.added(file));
            } else if (event.kind() == ENTRY_DELETE) {
              sink.accept(Change.deleted(file));
            } else {
              sink.accept(Change.modified(file));
            }
          }
          // OVERFLOW carries no name: events were lost, and the next list repairs that.
        }
        if (!key.reset()) {
          return; // the directory is gone
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed by the loop
    }
  }
}
