package io.setpoint.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's chromium, headless, driven through its chromium-driver for one test and quit after it
 * (as a registered extension), or for as long as its owner wants and quit with {@link #quit()}.
 * With {@code -Dsetpoint.ui.screenshots=DIR}, {@link #screenshot} saves PNGs there (how
 * docs/ui.md's pictures are made); otherwise it does nothing.
 */
final class Browser implements AfterEachCallback {
  static final String CHROMIUM = "/usr/bin/chromium";
  static final String DRIVER = "/usr/bin/chromedriver";
  static final String MISSING =
      "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver; .ci/run does)";

  /**
   * Selenium warns at each start that it has no DevTools protocol classes for this chromium; the
   * tests use WebDriver only. Held here so the setting is not collected with an unreferenced logger.
   */
  private static final Logger SELENIUM_LOG = Logger.getLogger("org.openqa.selenium");

  static {
    SELENIUM_LOG.setLevel(Level.SEVERE);
  }

  private ChromeDriver driver;

  /** Whether the browser and its driver are where Debian's packages put them. */
  static boolean installed() {
    return Files.isExecutable(Path.of(CHROMIUM)) && Files.isExecutable(Path.of(DRIVER));
  }

  /** Starts the browser (once per test) and opens {@code url}. */
  WebDriver open(String url) {
    if (driver == null) {
      ChromeOptions options = new ChromeOptions()
          .setBinary(CHROMIUM)
          // no-sandbox: CI runs as root, where chromium's sandbox refuses to start.
          .addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--window-size=1300,1000", "--lang=en-GB");
      ChromeDriverService service = new ChromeDriverService.Builder()
          .usingDriverExecutable(new File(DRIVER))
          .usingAnyFreePort()
          .build();
      driver = new ChromeDriver(service, options);
      driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }
    driver.get(url);
    return driver;
  }

  /** Saves what the browser shows as {@code name}.png when screenshots were asked for. */
  void screenshot(String name) throws IOException {
    String dir = System.getProperty("setpoint.ui.screenshots");
    if (dir != null && driver != null) {
      Path target = Files.createDirectories(Path.of(dir)).resolve(name + ".png");
      Files.copy(driver.getScreenshotAs(OutputType.FILE).toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Override
  public void afterEach(ExtensionContext context) {
    quit();
  }

  /** Quits the browser, if it runs; the next {@link #open} starts another. */
  void quit() {
    if (driver != null) {
      driver.quit();
      driver = null;
    }
  }
}
