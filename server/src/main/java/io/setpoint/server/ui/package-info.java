/**
 * The web UI the agent serves under {@code /ui/}: static files from the server jar that read
 * everything through the HTTP/JSON API, with the caller's token (docs/ui.md).
 */
package io.setpoint.server.ui;
