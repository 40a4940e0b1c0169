package io.setpoint.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** A plain-text table: columns as wide as their widest cell, separated by three spaces. */
final class Table {
  private final List<List<String>> rows = new ArrayList<>();

  Table(List<String> header) {
    rows.add(List.copyOf(header));
  }

  void row(List<String> cells) {
    if (cells.size() != rows.get(0).size()) {
      throw new IllegalArgumentException("a row needs " + rows.get(0).size() + " cells, got " + cells.size());
    }
    rows.add(List.copyOf(cells));
  }

  void print(PrintWriter out) {
    int columns = rows.get(0).size();
    int[] widths = new int[columns];
    for (List<String> row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    for (List<String> row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(row.get(i));
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - row.get(i).length() + 3));
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
