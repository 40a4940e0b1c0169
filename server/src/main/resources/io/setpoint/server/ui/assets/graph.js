// The ownership graph of a resource: it and everything it owns, transitively, drawn as a tree
// from left to right; each node links to its resource and is coloured by its conditions.

import { get } from './api.js';
import { apiPath, health, qualifiedName, s, tenancyParams, uiPath } from './dom.js';

const MAX_NODES = 300;
const WIDTH = 220;
const HEIGHT = 38;
const COLUMN_GAP = 56;
const ROW_GAP = 10;

/** The tree under {@code root} (a resource): {resource, children}, breadth first, bounded. */
export async function ownedTree(root) {
  const top = { resource: root, children: [] };
  const queue = [top];
  let nodes = 1;
  let cut = false;
  while (queue.length > 0) {
    const node = queue.shift();
    const id = node.resource.id;
    const { resources = [] } = await get(`${apiPath({ ...id.type, version: id.type.groupVersion }, id.name)}/owned`,
      { ...tenancyParams(id.tenancy), uid: id.uid });
    for (const child of resources.sort((a, b) => qualifiedName(a.id).localeCompare(qualifiedName(b.id)))) {
      if (nodes === MAX_NODES) {
        cut = true;
        break;
      }
      const next = { resource: child, children: [] };
      node.children.push(next);
      queue.push(next);
      nodes++;
    }
  }
  return { tree: top, nodes, cut };
}

/** The tree as an SVG element. */
export function drawTree(tree) {
  const placed = [];
  let row = 0;
  let depthMax = 0;
  // Leaves take rows in order; a parent sits level with the middle of its children.
  function place(node, depth) {
    depthMax = Math.max(depthMax, depth);
    let y;
    if (node.children.length === 0) {
      y = row++;
    } else {
      const ys = node.children.map((child) => place(child, depth + 1));
      y = (ys[0] + ys[ys.length - 1]) / 2;
    }
    placed.push({ node, depth, y });
    return y;
  }
  place(tree, 0);
  const at = new Map(placed.map((p) => [p.node, p]));
  const x = (depth) => 10 + depth * (WIDTH + COLUMN_GAP);
  const y = (r) => 10 + r * (HEIGHT + ROW_GAP);
  const edges = [];
  for (const p of placed) {
    for (const child of p.node.children) {
      const c = at.get(child);
      const x1 = x(p.depth) + WIDTH;
      const y1 = y(p.y) + HEIGHT / 2;
      const x2 = x(c.depth);
      const y2 = y(c.y) + HEIGHT / 2;
      const mid = (x1 + x2) / 2;
      edges.push(s('path', { d: `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}` }));
    }
  }
  const nodes = placed.map(({ node, depth, y: r }) => {
    const id = node.resource.id;
    return s('a', { href: uiPath(id) },
      s('g', { class: `node ${health(node.resource)}${depth === 0 ? ' root' : ''}`, 'data-name': id.name,
        'data-kind': id.type.kind, transform: `translate(${x(depth)},${y(r)})` },
      s('title', {}, `${id.type.group}.${id.type.groupVersion}.${id.type.kind} ${qualifiedName(id)}`),
      s('rect', { width: WIDTH, height: HEIGHT }),
      s('text', { class: 'kind', x: 8, y: 14 }, id.type.kind),
      s('text', { x: 8, y: 30 }, clip(id.name))));
  });
  const width = x(depthMax) + WIDTH + 10;
  const height = y(Math.max(row, 1) - 1) + HEIGHT + 10;
  return s('svg', { class: 'graph', id: 'graph', width, height, viewBox: `0 0 ${width} ${height}` }, edges, nodes);
}

function clip(text) {
  return text.length > 28 ? `${text.slice(0, 27)}…` : text;
}
