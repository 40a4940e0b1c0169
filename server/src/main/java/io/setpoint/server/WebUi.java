package io.setpoint.server;

import com.linecorp.armeria.common.HttpHeaderNames;
import com.linecorp.armeria.common.HttpResponse;
import com.linecorp.armeria.common.HttpStatus;
import com.linecorp.armeria.common.ResponseHeaders;
import com.linecorp.armeria.server.HttpService;
import com.linecorp.armeria.server.ServerBuilder;
import com.linecorp.armeria.server.file.FileService;
import com.linecorp.armeria.server.file.HttpFile;

/**
 * Serves the web UI: its scripts and styles under {@code /ui/assets/}, and its one page for every
 * other path under {@code /ui/}, so each view's address can be bookmarked and reloaded (the page
 * reads the path and draws the view). {@code /} and {@code /ui} redirect to {@code /ui/}.
 *
 * <p>The files are in the server jar; nothing is fetched from elsewhere, and the content security
 * policy says so to the browser. The UI holds no authority of its own: it calls {@code /api} with
 * the token its user signs in with, so it shows what that token may read and nothing more.
 */
final class WebUi {
  private static final String ROOT = "io/setpoint/server/ui";
  /** Scripts and styles from this origin only; data only from this origin's API. */
  private static final String CSP =
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
          + " base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

  private WebUi() {}

  /** Adds the UI's routes to {@code server}. */
  public static void bind(ServerBuilder server) {
    ClassLoader loader = WebUi.class.getClassLoader();
    HttpService assets = FileService.builder(loader, ROOT + "/assets")
        .addHeader(HttpHeaderNames.CACHE_CONTROL, "no-cache")
        .addHeader(HttpHeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff")
        .build();
    HttpService page = HttpFile.builder(loader, ROOT + "/index.html")
        .addHeader(HttpHeaderNames.CACHE_CONTROL, "no-cache")
        .addHeader(HttpHeaderNames.CONTENT_SECURITY_POLICY, CSP)
        .addHeader(HttpHeaderNames.X_CONTENT_TYPE_OPTIONS, "nosniff")
        .build()
        .asService();
    HttpService toUi = (ctx, req) -> HttpResponse.of(
        ResponseHeaders.of(HttpStatus.FOUND, HttpHeaderNames.LOCATION, "/ui/"));
    server.serviceUnder("/ui/assets/", assets)
        .serviceUnder("/ui/", page)
        .service("/ui", toUi)
        .service("/", toUi);
  }
}
