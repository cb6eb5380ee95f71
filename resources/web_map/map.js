"use strict";
// The page of `sentspace export-map` (app/exporters/web_map.py): the points drawn by a WebGL
// renderer of its own, whose filter, colour and draw order are one byte per point in
// GPU buffers (a brush rewrites those bytes, never the points); charts, a table, search
// and a filter expression cross-filtering over typed arrays. The passes over every point
// are engine.js's, in the page's worker: this thread asks for a change and draws the answer.
const MANIFEST = document.getElementById("sentspace-data").textContent;
const DATA = JSON.parse(MANIFEST);
const LISTED = 300;   // rows shown in a group's list; the count says how many more
const PAGE = 50;      // table rows per page
const FADED = [190, 190, 190, 0.3];   // points that the filters leave out
const n = DATA.n;

// ---- The payload: typed arrays in one gzip'd block, unpacked by the browser itself
// (engine.js reads its sections).
async function unpack() {
  // Read once, then out of the document, which would otherwise hold the text for good.
  const holder = document.getElementById("sentspace-bytes"), text = holder.textContent.trim();
  holder.remove();
  const packed = Uint8Array.fromBase64 ? Uint8Array.fromBase64(text)
    : new Uint8Array(await (await fetch("data:application/octet-stream;base64," + text)).arrayBuffer());
  const stream = new Blob([packed]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function element(tag, properties = {}, ...children) {
  const made = Object.assign(document.createElement(tag), properties);
  made.append(...children);
  return made;
}

let xy, texts, ids, columns, charted, neighbours;

// ---- Changes, asked of the engine (engine.js: crossFilter), which holds the filters'
// masks and every per-point count, in the page's worker. Each change has a number; the
// answers come back in order, each saying what it changed (a chart's counts, the layer
// bytes, the table's rows, ...). Every answer is kept, only the latest drawn: a change
// made while the worker was busy leaves the answers before it undrawn. The body's
// data-asked and data-applied say the latest change asked and the latest drawn.
let engine = null;            // {post(message)}: the worker, or the page itself
let asked = 0;
const waiting = [];           // each change's resolve: kept once an answer as late is drawn
let pending = {};             // what the answers not yet drawn changed
function ask(message) {
  message.seq = ++asked;
  document.body.dataset.asked = asked;
  engine.post(message);
  return new Promise(resolve => waiting.push(resolve));
}
function receive(answer) {
  if (answer.failed) {
    document.getElementById("shown").textContent = "the page failed; reload it";
    throw new Error(answer.failed);
  }
  for (const key of ["filters", "colour", "palette", "layer", "rows", "search", "error"]) {
    if (key in answer) pending[key] = answer[key];
  }
  if (answer.counts) pending.counts = {...pending.counts, ...answer.counts};
  if (answer.seq !== asked) return;
  const changed = pending;
  pending = {};
  drawAnswer(changed);
  document.body.dataset.applied = answer.seq;
  // Kept with the view updated and the map's frame asked for: the next frame draws it.
  for (const resolve of waiting.splice(0)) resolve();
}
// The page's part of a change, all in the one frame that draws the map: bytes to the
// GPU and the map drawn first (sent on, so that the GPU draws while this thread lays
// out the rest), then the bars whose count changed, the chips and outline, the legend,
// the table's first page.
function drawAnswer({filters, colour, palette, layer, rows, search, error, counts}) {
  if (colour) {
    colourBytes = colour;
    setPalette(palette);
    upload(buffers.colour, colourBytes);
  }
  if (layer) {
    layerBytes = layer;
    upload(buffers.layer, layerBytes);
  }
  if (search) showSearch(search);
  if (colour || layer || search) drawNow();
  if (colour) {
    document.getElementById("colouring").value = colourIndex;
    drawLegend();
  }
  if (error !== undefined) document.getElementById("expression-error").textContent = error;
  if (counts) for (const [key, shown] of Object.entries(counts)) charted.find(c => c.key === key).shown = shown;
  if (filters) shownFilters = filters;
  if (counts || filters) {
    drawCharts();
    drawChips();
    drawOutline();
  }
  if (rows) {
    tableRows = rows;
    drawTable();
  }
}

// ---- Filters: a brush, bars, an expression, a box or lasso; each a chip.
let shownFilters = [];        // [key, label] of each filter, as the latest answer drawn
function brush(column, first, last) {
  column.range = [first, last];
  const chosen = new Uint8Array(column.nSlots);
  chosen.fill(1, first, last + 1);
  return ask({op: "filter", key: column.key, chosen, label: `${column.title} ${column.span(first, last + 1)}`});
}
function toggleBar(column, bar) {
  column.chosen = column.chosen || new Set();
  column.chosen.has(bar) ? column.chosen.delete(bar) : column.chosen.add(bar);
  if (!column.chosen.size) return clearChart(column);
  const chosen = new Uint8Array(column.nSlots);
  for (const b of column.chosen) chosen[b] = 1;
  return ask({op: "filter", key: column.key, chosen,
              label: `${column.title}: ${[...column.chosen].map(b => column.bars[b]).join(", ")}`});
}
function clearChart(column) {
  column.range = null;
  column.chosen = null;
  return ask({op: "filter", key: column.key});
}
function brushValues(title, low, high) {   // for scripts: the bins from low's to high's
  const column = columns.find(c => c.title === title);
  const bin = v => Math.min(column.nBins - 1, Math.max(0, Math.floor((v - column.low) / column.width)));
  return brush(column, bin(low), bin(high));
}

// ---- Drawing the charts.
const SVG = "http://www.w3.org/2000/svg";
function svgElement(tag, attributes) {
  const made = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) made.setAttribute(name, value);
  return made;
}
function buildCharts() {
  const box = document.getElementById("charts");
  for (const column of charted) {
    column.all = new Float64Array(column.nSlots);
    for (let i = 0; i < n; i++) column.all[column.slot[i]]++;
    column.shown = column.all;   // no filter yet
    const clear = element("a", {textContent: "clear", hidden: true, onclick: () => clearChart(column)});
    const chart = element("div", {className: "chart"},
                          element("h3", {}, element("span", {textContent: column.title}), clear));
    chart.dataset.column = column.title;
    column.clearLink = clear;
    if (column.kind === "number") buildHistogram(column, chart);
    else buildBars(column, chart);
    // A chart that says nothing, as the window decides (filters.Chart.informative), is
    // left out; its column still colours and filters.
    chart.hidden = !column.drawn;
    box.appendChild(chart);
  }
}
function buildHistogram(column, chart) {
  const svg = svgElement("svg", {viewBox: `0 0 ${column.nBins} 100`, preserveAspectRatio: "none"});
  column.rects = [];
  for (let b = 0; b < column.nBins; b++) {
    const all = svgElement("rect", {class: "all", x: b + 0.06, width: 0.88, y: 100, height: 0});
    const inside = svgElement("rect", {class: "in", x: b + 0.06, width: 0.88, y: 100, height: 0});
    all.appendChild(svgElement("title", {}));
    svg.append(all, inside);
    column.rects.push([all, inside]);
  }
  const mark = svgElement("rect", {class: "brush", x: 0, width: 0, y: 0, height: 100,
                                   "vector-effect": "non-scaling-stroke"});
  svg.appendChild(mark);
  column.brushMark = mark;
  const binAt = event => {
    const box = svg.getBoundingClientRect();
    return Math.max(0, Math.min(column.nBins - 1,
                                Math.floor((event.clientX - box.left) / box.width * column.nBins)));
  };
  svg.addEventListener("mousedown", down => {
    down.preventDefault();
    const start = binAt(down);
    const show = end => {
      const [a, b] = [Math.min(start, end), Math.max(start, end)];
      mark.setAttribute("x", a);
      mark.setAttribute("width", b - a + 1);
      return [a, b];
    };
    show(start);
    const move = event => show(binAt(event));
    const up = event => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
      brush(column, ...show(binAt(event)));
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  });
  const nones = column.all[column.nBins];
  chart.append(svg, element("div", {className: "range"},
    element("span", {textContent: formatNumber(column.low, column.integer)}),
    element("span", {className: "muted", textContent: nones ? `${thousands(nones)} without` : ""}),
    element("span", {textContent: formatNumber(column.high, column.integer)})));
}
function buildBars(column, chart) {
  column.rows = [];
  column.bars.forEach((label, bar) => {
    if (label === null) return;
    const all = element("div", {className: "all"}), inside = element("div", {className: "in"});
    const text = element("span");
    const row = element("div", {className: "bar", onclick: () => toggleBar(column, bar)}, all, inside, text);
    row.dataset.bar = bar;
    row.dataset.label = label;
    chart.appendChild(row);
    column.rows.push([bar, label, all, inside, text, row]);
  });
}
// A chart counts the points passing every filter but its own (the engine counts it): a
// change of its own filter leaves its counts as they were, so only the other charts are
// recounted; and only the bars whose count changed are redrawn, so the browser lays out
// and paints what changed, not every chart.
function drawCharts() {
  const filtered = new Set(shownFilters.map(([key]) => key));
  // Charts that say nothing are not drawn (filters.Chart.informative), nor counted.
  for (const column of charted.filter(c => c.drawn)) {
    const before = column.drawnCounts, counts = column.shown;   // none before the first draw
    column.drawnCounts = counts;
    const own = filtered.has(column.key);
    column.clearLink.hidden = !own;
    if (column.kind === "number") {
      let most = 1;
      for (let b = 0; b < column.nBins; b++) most = Math.max(most, column.all[b]);
      column.rects.forEach(([all, inside], b) => {
        if (before && before[b] === counts[b]) return;
        const full = 100 * column.all[b] / most, part = 100 * counts[b] / most;
        all.setAttribute("y", 100 - full); all.setAttribute("height", full);
        inside.setAttribute("y", 100 - part); inside.setAttribute("height", part);
        all.firstChild.textContent = `${column.span(b, b + 1)}: ${thousands(counts[b])} of ${thousands(column.all[b])}`;
      });
      if (!own) column.brushMark.setAttribute("width", 0);
      else {
        const [a, b] = column.range;
        column.brushMark.setAttribute("x", a);
        column.brushMark.setAttribute("width", b - a + 1);
      }
    } else {
      const most = Math.max(1, ...column.rows.map(([bar]) => column.all[bar]));
      for (const [bar, label, all, inside, text, row] of column.rows) {
        row.classList.toggle("chosen", Boolean(column.chosen && column.chosen.has(bar)));
        if (before && before[bar] === counts[bar]) continue;
        all.style.width = `${100 * column.all[bar] / most}%`;
        inside.style.width = `${100 * counts[bar] / most}%`;
        text.textContent = `${label} · ${thousands(counts[bar])}`;
      }
    }
  }
}

// ---- The map: WebGL points. Each point has a colour byte (an index into a palette
// of uniforms) and a layer byte (0: left out by the filters, drawn faded; 1: grey, an
// "other" category or no value; 2: in a colour of its own); a layer is a depth, so a
// point of a higher layer is drawn over one of a lower whatever their order, and a
// filter or colour change rewrites n bytes on the GPU, not the points.
const PALETTE = 72;
const POINTS_VERTEX = `
attribute vec2 position; attribute float colour; attribute float layer;
uniform vec2 scale, offset; uniform float size; uniform vec4 palette[${PALETTE}]; uniform vec4 faded;
varying vec4 drawn;
void main() {
  gl_Position = vec4(position * scale + offset, layer < 0.5 ? 0.9 : layer < 1.5 ? 0.5 : 0.1, 1.0);
  gl_PointSize = size;
  drawn = layer < 0.5 ? faded : palette[int(colour)];
}`;
const POINTS_FRAGMENT = `
precision mediump float;
varying vec4 drawn;
void main() {
  vec2 d = gl_PointCoord - 0.5;
  if (dot(d, d) > 0.25) discard;
  gl_FragColor = vec4(drawn.rgb * drawn.a, drawn.a);
}`;
// Points of 3 px or less are squares: a disc that small differs from its square by a
// corner pixel or none, and SwiftShader draws 145,000 of them a sixth faster without the
// discard.
const SQUARES_FRAGMENT = `
precision mediump float;
varying vec4 drawn;
void main() { gl_FragColor = vec4(drawn.rgb * drawn.a, drawn.a); }`;
// A ring: a circle of `colour` `stroke` px wide over a white halo `halo` px wide.
const RING_VERTEX = `
attribute vec2 position; uniform vec2 scale, offset; uniform float size;
void main() { gl_Position = vec4(position * scale + offset, 0.0, 1.0); gl_PointSize = size; }`;
const RING_FRAGMENT = `
precision highp float;
uniform vec4 colour; uniform float size, radius, stroke, halo;
void main() {
  float r = length(gl_PointCoord - 0.5) * size;
  float away = abs(r - radius);
  if (away > halo / 2.0) discard;
  gl_FragColor = away <= stroke / 2.0 ? colour : vec4(1.0);
}`;
const map = document.getElementById("map");
const canvas = document.getElementById("points");
const axesCanvas = document.getElementById("axes");
let gl, pointsProgram, ringProgram, buffers = {};
let pointSize = 6;
const view = {cx: 0, cy: 0, scale: 1, width: 1, height: 1, whole: null};
const MARGIN = {left: 44, right: 10, top: 10, bottom: 30};   // the axes' room
let colourBytes, layerBytes;
// Rings: the search's matches (magenta) and the chosen point with its neighbours (black),
// each kind's positions in a GPU buffer of its own, written when they change (a search
// may ring 100,000 points: not rebuilt at every frame of a pan).
const rings = {found: {indices: new Int32Array(0), colour: DATA.ring_colour, extra: 8, stroke: 2},
               chosen: {indices: new Int32Array(0), colour: "#000000", extra: 11, stroke: 2.5}};

function program(vertex, fragment) {
  const made = gl.createProgram();
  for (const [type, source] of [[gl.VERTEX_SHADER, vertex], [gl.FRAGMENT_SHADER, fragment]]) {
    const shader = gl.createShader(type);
    gl.shaderSource(shader, source);
    gl.compileShader(shader);
    if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(shader));
    gl.attachShader(made, shader);
  }
  gl.linkProgram(made);
  if (!gl.getProgramParameter(made, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(made));
  const where = {};
  const attributes = gl.getProgramParameter(made, gl.ACTIVE_ATTRIBUTES);
  for (let k = 0; k < attributes; k++) {
    const name = gl.getActiveAttrib(made, k).name;
    where[name] = gl.getAttribLocation(made, name);
  }
  const uniforms = gl.getProgramParameter(made, gl.ACTIVE_UNIFORMS);
  for (let k = 0; k < uniforms; k++) {
    const name = gl.getActiveUniform(made, k).name.replace(/\[0\]$/, "");
    where[name] = gl.getUniformLocation(made, name);
  }
  return {program: made, where};
}
function startRenderer() {
  gl = canvas.getContext("webgl", {antialias: false, depth: true});
  if (!gl) throw new Error("this browser has no WebGL");
  pointSize = n > 20000 ? 3 : 6;
  const squares = pointSize * (window.devicePixelRatio || 1) <= 3;
  pointsProgram = program(POINTS_VERTEX, squares ? SQUARES_FRAGMENT : POINTS_FRAGMENT);
  ringProgram = program(RING_VERTEX, RING_FRAGMENT);
  const buffer = (data, usage) => {
    const made = gl.createBuffer();
    gl.bindBuffer(gl.ARRAY_BUFFER, made);
    gl.bufferData(gl.ARRAY_BUFFER, data, usage);
    return made;
  };
  buffers.position = buffer(xy, gl.STATIC_DRAW);
  buffers.colour = buffer(colourBytes, gl.DYNAMIC_DRAW);
  buffers.layer = buffer(layerBytes, gl.DYNAMIC_DRAW);
  for (const ring of Object.values(rings)) ring.buffer = gl.createBuffer();
  new ResizeObserver(() => { resize(); }).observe(map);
  resize();
}
function resize() {
  const ratio = window.devicePixelRatio || 1;
  const width = map.clientWidth, height = map.clientHeight;
  for (const made of [canvas, axesCanvas]) {
    made.width = Math.round(width * ratio);
    made.height = Math.round(height * ratio);
    made.style.width = `${width}px`;
    made.style.height = `${height}px`;
  }
  const first = !view.whole;
  const before = view.whole && [view.width, view.height];
  view.width = width;
  view.height = height;
  if (first) resetView();
  else if (before[0] !== width || before[1] !== height) view.whole = wholeView();
  requestDraw(true);
}
// The view showing every point, x and y at one scale.
function wholeView() {
  let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = xy[2 * i], y = xy[2 * i + 1];
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  if (!(x0 <= x1)) { x0 = y0 = -1; x1 = y1 = 1; }
  const spanX = Math.max(x1 - x0, 1e-9) * 1.06, spanY = Math.max(y1 - y0, 1e-9) * 1.06;
  const plotWidth = Math.max(1, view.width - MARGIN.left - MARGIN.right);
  const plotHeight = Math.max(1, view.height - MARGIN.top - MARGIN.bottom);
  return {cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, scale: Math.min(plotWidth / spanX, plotHeight / spanY)};
}
function resetView() {
  view.whole = wholeView();
  Object.assign(view, view.whole);
  requestDraw(true);
}
// Data to the map element's pixels and back; the plotting area's centre is the view's.
function centre() {
  return [MARGIN.left + (view.width - MARGIN.left - MARGIN.right) / 2,
          MARGIN.top + (view.height - MARGIN.top - MARGIN.bottom) / 2];
}
function toScreen(x, y) {
  const [mx, my] = centre();
  return [mx + (x - view.cx) * view.scale, my - (y - view.cy) * view.scale];
}
function toData(px, py) {
  const [mx, my] = centre();
  return [view.cx + (px - mx) / view.scale, view.cy - (py - my) / view.scale];
}
// The map is drawn at the next frame (a pan's moves coalesce), or at once where a
// change's bytes have just gone to the GPU; a frame finds nothing to draw if it was.
let drawPending = false, viewChanged = false, pointsStale = false;
function requestDraw(moved = false) {
  viewChanged = viewChanged || moved;
  pointsStale = true;
  if (drawPending) return;
  drawPending = true;
  requestAnimationFrame(() => {
    drawPending = false;
    if (pointsStale) drawPoints();
    if (viewChanged) { viewChanged = false; drawAxes(); nameRegions(); drawOutline(); }
  });
}
function drawNow() {
  drawPoints();
  gl.flush();
}
function drawPoints() {
  pointsStale = false;
  const ratio = window.devicePixelRatio || 1;
  gl.viewport(0, 0, canvas.width, canvas.height);
  gl.clearColor(1, 1, 1, 1);
  gl.clearDepth(1);
  gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
  gl.enable(gl.BLEND);
  gl.blendFunc(gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
  const [mx, my] = centre();
  // clip = (data - c) * s * 2 / size + (m * 2 / size - 1), y flipped.
  const scale = [2 * view.scale / view.width, 2 * view.scale / view.height];
  const offset = [2 * mx / view.width - 1 - view.cx * scale[0], 1 - 2 * my / view.height - view.cy * scale[1]];
  const {program: points, where} = pointsProgram;
  gl.useProgram(points);
  gl.enable(gl.DEPTH_TEST);
  gl.depthFunc(gl.LEQUAL);
  gl.uniform2fv(where.scale, scale);
  gl.uniform2fv(where.offset, offset);
  gl.uniform1f(where.size, pointSize * ratio);
  gl.uniform4fv(where.palette, paletteUniform);
  gl.uniform4fv(where.faded, [...FADED.slice(0, 3).map(c => c / 255), FADED[3]]);
  const attribute = (name, buffer, size, type) => {
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.enableVertexAttribArray(where[name]);
    gl.vertexAttribPointer(where[name], size, type, false, 0, 0);
  };
  attribute("position", buffers.position, 2, gl.FLOAT);
  attribute("colour", buffers.colour, 1, gl.UNSIGNED_BYTE);
  attribute("layer", buffers.layer, 1, gl.UNSIGNED_BYTE);
  gl.drawArrays(gl.POINTS, 0, n);
  for (const name of ["colour", "layer"]) gl.disableVertexAttribArray(where[name]);
  gl.disable(gl.DEPTH_TEST);
  const ring = ringProgram;
  gl.useProgram(ring.program);
  gl.uniform2fv(ring.where.scale, scale);
  gl.uniform2fv(ring.where.offset, offset);
  for (const {indices, buffer, colour, extra, stroke} of Object.values(rings)) {
    if (!indices.length) continue;
    const halo = 5, diameter = pointSize + extra, size = (diameter + halo) * ratio;
    gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
    gl.enableVertexAttribArray(ring.where.position);
    gl.vertexAttribPointer(ring.where.position, 2, gl.FLOAT, false, 0, 0);
    gl.uniform1f(ring.where.size, size);
    gl.uniform1f(ring.where.radius, diameter / 2 * ratio);
    gl.uniform1f(ring.where.stroke, stroke * ratio);
    gl.uniform1f(ring.where.halo, halo * ratio);
    gl.uniform4fv(ring.where.colour, [...rgb(colour).map(c => c / 255), 1]);
    gl.drawArrays(gl.POINTS, 0, indices.length);
  }
  if (!ringsBuilt) buildRings(ring);
}
// Software WebGL (SwiftShader) builds a program's code at its first draw: the rings'
// is drawn once with the first frame, one point whose every fragment is discarded, so
// that the first search or click does not wait for it.
let ringsBuilt = false;
function buildRings({where}) {
  ringsBuilt = true;
  gl.bindBuffer(gl.ARRAY_BUFFER, buffers.position);
  gl.enableVertexAttribArray(where.position);
  gl.vertexAttribPointer(where.position, 2, gl.FLOAT, false, 0, 0);
  gl.uniform1f(where.size, 1);
  gl.uniform1f(where.radius, -1);
  gl.uniform1f(where.halo, 0);
  gl.drawArrays(gl.POINTS, 0, 1);
}
function mark(kind, indices) {
  const at = new Float32Array(2 * indices.length);
  indices.forEach((i, k) => { at[2 * k] = xy[2 * i]; at[2 * k + 1] = xy[2 * i + 1]; });
  rings[kind].indices = indices;
  gl.bindBuffer(gl.ARRAY_BUFFER, rings[kind].buffer);
  gl.bufferData(gl.ARRAY_BUFFER, at, gl.DYNAMIC_DRAW);
  requestDraw();
}

// Ticks and axis titles on a 2D canvas over the points.
function drawAxes() {
  const ratio = window.devicePixelRatio || 1;
  const context = axesCanvas.getContext("2d");
  context.setTransform(ratio, 0, 0, ratio, 0, 0);
  context.clearRect(0, 0, view.width, view.height);
  const left = MARGIN.left, bottom = view.height - MARGIN.bottom;
  context.fillStyle = "#fff";
  context.fillRect(0, 0, left, view.height);
  context.fillRect(0, bottom, view.width, MARGIN.bottom);
  context.strokeStyle = "#888";
  context.fillStyle = "#444";
  context.font = "11px system-ui, sans-serif";
  context.beginPath();
  context.moveTo(left, MARGIN.top);
  context.lineTo(left, bottom);
  context.lineTo(view.width - MARGIN.right, bottom);
  context.stroke();
  const step = span => {
    const raw = span / 6, power = 10 ** Math.floor(Math.log10(raw)), unit = raw / power;
    return power * (unit < 1.5 ? 1 : unit < 3.5 ? 2 : unit < 7.5 ? 5 : 10);
  };
  const [x0, y0] = toData(left, bottom), [x1, y1] = toData(view.width - MARGIN.right, MARGIN.top);
  // A tick at zero computed as 1e-17 reads 0.
  const label = (v, step) => String(Number((Math.abs(v) < step * 1e-6 ? 0 : v).toPrecision(6)));
  context.textAlign = "center";
  context.textBaseline = "top";
  const dx = step(x1 - x0);
  for (let v = Math.ceil(x0 / dx) * dx; v <= x1; v += dx) {
    const [px] = toScreen(v, 0);
    context.fillRect(px, bottom, 1, 4);
    context.fillText(label(v, dx), px, bottom + 5);
  }
  context.textAlign = "right";
  context.textBaseline = "middle";
  const dy = step(y1 - y0);
  for (let v = Math.ceil(y0 / dy) * dy; v <= y1; v += dy) {
    const [, py] = toScreen(0, v);
    context.fillRect(left - 4, py, 4, 1);
    context.fillText(label(v, dy), left - 6, py);
  }
  context.textAlign = "center";
  context.textBaseline = "bottom";
  if (DATA.axes[0]) context.fillText(DATA.axes[0], left + (view.width - left) / 2, view.height - 1);
  if (DATA.axes[1]) {
    context.save();
    context.translate(10, MARGIN.top + (bottom - MARGIN.top) / 2);
    context.rotate(-Math.PI / 2);
    context.textBaseline = "middle";
    context.fillText(DATA.axes[1], 0, 0);
    context.restore();
  }
}

// Region names: the finest level whose regions are still about LEVEL_PX wide on
// screen; its names placed largest region first, one that would overlap a name
// already placed left out.
const LEVEL_PX = 140;
function nameRegions() {
  const levels = [DATA.regions, ...DATA.finer_regions];
  const box = document.getElementById("labels");
  const plotWidth = view.width - MARGIN.left - MARGIN.right, plotHeight = view.height - MARGIN.top - MARGIN.bottom;
  const zoom = view.scale / view.whole.scale;
  const area = plotWidth * plotHeight * zoom * zoom;
  let level = 0;
  levels.forEach((names, depth) => { if (names.length && Math.sqrt(area / names.length) >= LEVEL_PX) level = depth; });
  const placed = [], shown = [];
  for (const [label, rx, ry] of levels[level] || []) {
    const [px, py] = toScreen(rx, ry);
    const w = label.length * (level ? 3.3 : 3.9) + 6, h = level ? 9 : 10;
    // Whole names only, inside the plotting area.
    if (!(px - w >= MARGIN.left && px + w <= view.width - MARGIN.right && py - h >= MARGIN.top
          && py + h <= view.height - MARGIN.bottom)) continue;
    if (placed.some(([x, y, pw, ph]) => Math.abs(x - px) < w + pw && Math.abs(y - py) < h + ph)) continue;
    placed.push([px, py, w, h]);
    const name = element("div", {className: level ? "fine" : "", textContent: label});
    name.style.left = `${px}px`;
    name.style.top = `${py}px`;
    shown.push(name);
  }
  box.replaceChildren(...shown);
  box.dataset.level = level;
}

// ---- Pointing: a grid of the points in data space finds the one under the pointer.
let grid = null;
function buildGrid() {
  const {cx, cy, scale} = view.whole;
  const cells = Math.max(1, Math.min(2048, Math.ceil(Math.sqrt(n / 4))));
  const x0 = cx - view.width / scale, y0 = cy - view.height / scale;
  const size = 2 * Math.max(view.width, view.height) / scale / cells;
  const cellOf = new Uint32Array(n), starts = new Uint32Array(cells * cells + 1);
  const clamp = v => Math.max(0, Math.min(cells - 1, Math.floor(v)));
  for (let i = 0; i < n; i++) {
    const cell = clamp((xy[2 * i + 1] - y0) / size) * cells + clamp((xy[2 * i] - x0) / size);
    cellOf[i] = cell;
    starts[cell + 1]++;
  }
  for (let c = 0; c < cells * cells; c++) starts[c + 1] += starts[c];
  const filled = starts.slice(0, -1), points = new Uint32Array(n);
  for (let i = 0; i < n; i++) points[filled[cellOf[i]]++] = i;
  grid = {cells, x0, y0, size, starts, points, clamp};
}
// The point drawn on top within `radius` px of (px, py): the nearest of the highest layer.
function pointAt(px, py, radius = pointSize / 2 + 3) {
  if (!grid) buildGrid();
  const [x, y] = toData(px, py), r = radius / view.scale;
  const {cells, x0, y0, size, starts, points, clamp} = grid;
  let best = -1, bestLayer = -1, bestDistance = Infinity;
  for (let row = clamp((y - r - y0) / size); row <= clamp((y + r - y0) / size); row++) {
    for (let col = clamp((x - r - x0) / size); col <= clamp((x + r - x0) / size); col++) {
      const cell = row * cells + col;
      for (let k = starts[cell]; k < starts[cell + 1]; k++) {
        const i = points[k], dx = xy[2 * i] - x, dy = xy[2 * i + 1] - y, d = dx * dx + dy * dy;
        if (d > r * r) continue;
        const layer = layerBytes[i];
        if (layer > bestLayer || (layer === bestLayer && d < bestDistance)) {
          best = i; bestLayer = layer; bestDistance = d;
        }
      }
    }
  }
  return best;
}

// ---- Box and lasso: a shape in data space; the points inside (the engine finds them)
// are the map's filter.
let mode = "pan", selection = null;   // {kind: "box" | "lasso", points: [[x, y], ...]}
function setMode(chosen) {
  mode = chosen;
  for (const name of ["pan", "box", "lasso"]) {
    document.getElementById(`mode-${name}`).classList.toggle("on", name === chosen);
  }
}
function select(shape) {
  selection = shape;   // outlined with the answer
  return ask(shape ? {op: "filter", key: "map", shape} : {op: "filter", key: "map"});
}
function drawOutline(shape = selection) {
  const path = document.getElementById("selection-outline");
  if (!shape) { path.setAttribute("d", ""); return; }
  const corners = shape.kind === "box"
    ? [[shape.points[0][0], shape.points[0][1]], [shape.points[1][0], shape.points[0][1]],
       [shape.points[1][0], shape.points[1][1]], [shape.points[0][0], shape.points[1][1]]]
    : shape.points;
  path.setAttribute("d", "M" + corners.map(([x, y]) => toScreen(x, y).map(v => v.toFixed(1)).join(",")).join("L") + "Z");
}
function boxShape(a, b) {
  const [x0, y0] = toData(...a), [x1, y1] = toData(...b);
  return {kind: "box", points: [[Math.min(x0, x1), Math.min(y0, y1)], [Math.max(x0, x1), Math.max(y0, y1)]]};
}
function listenToTheMap() {
  const tooltip = document.getElementById("tooltip");
  const local = event => { const r = map.getBoundingClientRect(); return [event.clientX - r.left, event.clientY - r.top]; };
  let drag = null, hoverPending = null;
  canvas.addEventListener("pointerdown", event => {
    if (event.button !== 0) return;
    canvas.setPointerCapture(event.pointerId);
    const at = local(event);
    drag = {start: at, last: at, moved: false, path: [at], view: {...view}};
    tooltip.hidden = true;
  });
  canvas.addEventListener("pointermove", event => {
    const at = local(event);
    if (drag) {
      if (Math.hypot(at[0] - drag.start[0], at[1] - drag.start[1]) > 3) drag.moved = true;
      if (!drag.moved) return;
      if (mode === "pan") {
        view.cx = drag.view.cx - (at[0] - drag.start[0]) / view.scale;
        view.cy = drag.view.cy + (at[1] - drag.start[1]) / view.scale;
        requestDraw(true);
      } else if (mode === "box") drawOutline(boxShape(drag.start, at));
      else {
        drag.path.push(at);
        drawOutline({kind: "lasso", points: drag.path.map(p => toData(...p))});
      }
      return;
    }
    if (hoverPending) return;
    hoverPending = requestAnimationFrame(() => { hoverPending = null; hover(at); });
  });
  canvas.addEventListener("pointerup", event => {
    if (!drag) return;
    const at = local(event), was = drag;
    drag = null;
    if (!was.moved) {
      const i = pointAt(...at);
      if (i >= 0) return choose(i);
      if (mode !== "pan" && selection) return select(null);
      return;
    }
    if (mode === "box") return select(boxShape(was.start, at));
    if (mode === "lasso" && was.path.length > 2) {
      return select({kind: "lasso", points: [...was.path, at].map(p => toData(...p))});
    }
    drawOutline();
  });
  canvas.addEventListener("pointerleave", () => { tooltip.hidden = true; });
  canvas.addEventListener("wheel", event => {
    event.preventDefault();
    const at = local(event), before = toData(...at);
    view.scale *= Math.exp(-event.deltaY * (event.deltaMode ? 0.05 : 0.0015));
    const after = toData(...at);
    view.cx += before[0] - after[0];
    view.cy += before[1] - after[1];
    requestDraw(true);
  }, {passive: false});
  canvas.addEventListener("dblclick", () => resetView());
  for (const name of ["pan", "box", "lasso"]) {
    document.getElementById(`mode-${name}`).onclick = () => setMode(name);
  }
  document.getElementById("reset-view").onclick = resetView;
}
function hover(at) {
  const tooltip = document.getElementById("tooltip");
  const i = pointAt(...at);
  if (i < 0) { tooltip.hidden = true; return; }
  tooltip.replaceChildren(element("b", {textContent: ids.at(i)}), element("br"), texts.at(i));
  tooltip.hidden = false;
  const left = at[0] + 14 + tooltip.offsetWidth > view.width ? at[0] - 14 - tooltip.offsetWidth : at[0] + 14;
  tooltip.style.left = `${Math.max(0, left)}px`;
  tooltip.style.top = `${Math.min(at[1] + 10, view.height - tooltip.offsetHeight - 2)}px`;
  const hovered = document.getElementById("hovered");
  hovered.classList.remove("muted");
  const category = categoryOf(i);
  hovered.textContent = `${ids.at(i)}${category ? " · " + category : ""}\n${texts.at(i)}`;
}

// ---- Search by words: the engine scans the texts (in the worker, which holds them
// lower-cased end to end), ranks the matches, fades the points without any of the words
// and finds those ringed (at most engine.js's RINGED, the report says which).
let matched = null;           // per point: how many of the query's words it has (null: no search)
let queryWords = [];
function search(query) {
  sortKey = null;
  return ask({op: "search", words: [...new Set(words(query))]});
}
function showSearch({words: wanted, tiers, best, ringed, matched: found}) {
  queryWords = wanted;
  matched = found || null;
  const report = document.getElementById("matches");
  if (!found) {
    report.textContent = "";
    return mark("found", new Int32Array(0));
  }
  const all = tiers[wanted.length], some = n - tiers[0];
  // Past engine.js's RINGED, the first so many of them ringed.
  const capped = best && ringed.length < tiers[best] ? `the first ${thousands(ringed.length)}` : "";
  const tier = best === wanted.length ? "those with all" : `the ${thousands(tiers[best])} with ${best}`;
  const which = !best ? "none" : capped ? `${capped} of ${tier}` : tier;
  report.textContent = wanted.length === 1
    ? `${thousands(all)} sentences have the word${capped ? `; ringed: ${capped}` : ""}`
    : `${thousands(all)} sentences have all ${wanted.length} words, `
      + `${thousands(some)} have one or more; ringed: ${which}`;
  return mark("found", ringed);
}

// ---- The table: the points that pass every filter (and match the search), in the
// order the engine sorted them, paged.
let sortKey = null, sortDescending = false, pageStart = 0, tableRows = new Int32Array(0);
let shownHeading = null;         // the header row drawn: its columns and sort
function headers() {
  return [["id", "id"], ["text", "text"], ...(matched ? [["matched", "words matched"]] : []),
          ...columns.map(c => [c.key, c.title])];
}
function drawTable() {
  pageStart = 0;
  // The header row is rebuilt only when its columns or the sort change.
  const heading = JSON.stringify([headers(), sortKey, sortDescending]);
  if (heading !== shownHeading) {
    shownHeading = heading;
    document.querySelector("#rows thead").replaceChildren(element("tr", {}, ...headers().map(([key, title]) => {
      const th = element("th", {textContent: title + (sortKey === key ? (sortDescending ? " ▼" : " ▲") : ""),
        onclick: () => {
          if (key === "matched") { sortKey = null; } else if (sortKey === key) sortDescending = !sortDescending;
          else { sortKey = key; sortDescending = false; }
          return ask({op: "sort", key: sortKey, descending: sortDescending});
        }});
      th.dataset.key = key;
      return th;
    })));
  }
  document.getElementById("shown").textContent = `${thousands(tableRows.length)} of ${thousands(n)} sentences`
    + (matched ? " matching the search" : "");
  drawPage();
}
// A page's rows are kept and their texts rewritten, so that a change restyles nothing
// and lays out only the cells that changed; rows are built or removed only as their
// count or the columns change.
function drawPage() {
  const body = document.querySelector("#rows tbody");
  const shown = tableRows.subarray(pageStart, pageStart + PAGE);
  const width = 2 + (matched ? 1 : 0) + columns.length;
  if (body.rows.length && body.rows[0].cells.length !== width) body.replaceChildren();
  while (body.rows.length > shown.length) body.lastChild.remove();
  while (body.rows.length < shown.length) {
    const cells = Array.from({length: width}, (_, c) => element("td", {className: c === 1 ? "text" : ""}, ""));
    const row = element("tr", {}, ...cells);
    row.onclick = () => choose(Number(row.dataset.index));
    body.appendChild(row);
  }
  shown.forEach((i, r) => {
    const row = body.rows[r], cells = row.cells;
    row.dataset.index = i;
    const values = [ids.at(i), texts.at(i), ...(matched ? [`${matched[i]} of ${queryWords.length}`] : []),
                    ...columns.map(column => valueText(column, i))];
    values.forEach((value, c) => { if (cells[c].firstChild.data !== value) cells[c].firstChild.data = value; });
  });
  const total = tableRows.length;
  document.getElementById("page").textContent = total
    ? `${thousands(pageStart + 1)}–${thousands(Math.min(total, pageStart + PAGE))}` : "";
}

// ---- Export: what the table holds, every page, as a file made in the page.
function exportRows(format) {
  const fields = headers();
  const values = i => fields.map(([key]) => key === "id" ? ids.at(i) : key === "text" ? texts.at(i)
    : key === "matched" ? matched[i] : columns.find(c => c.key === key).value(i));
  let text;
  if (format === "csv") {
    const cell = v => {
      const s = v === null || (typeof v === "number" && Number.isNaN(v)) ? "" : String(v);
      return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    };
    const lines = [fields.map(([, title]) => cell(title)).join(",")];
    for (const i of tableRows) lines.push(values(i).map(cell).join(","));
    text = lines.join("\r\n") + "\r\n";
  } else {
    const lines = [];
    for (const i of tableRows) {
      const row = {};
      values(i).forEach((v, k) => { row[fields[k][1]] = typeof v === "number" && Number.isNaN(v) ? null : v; });
      lines.push(JSON.stringify(row));
    }
    text = lines.join("\n") + "\n";
  }
  const link = document.getElementById("download");
  if (link.href) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([text], {type: format === "csv" ? "text/csv" : "application/jsonl"}));
  link.download = `${identifier(DATA.title)}-${tableRows.length}.${format}`;
  link.click();
}

// ---- The filter expression: the language of `--where` (expression.js), parsed and
// evaluated by the engine; the answer says its mistake, or "" for none.
function applyExpression(source) {
  const expression = source.trim();
  return ask(expression ? {op: "filter", key: "expression", expression, label: `where ${expression}`}
    : {op: "filter", key: "expression"});
}

function drawChips() {
  const chips = document.getElementById("chips");
  for (const chip of chips.querySelectorAll(".chip")) chip.remove();
  for (const [key, label] of shownFilters) {
    const chip = element("span", {className: "chip", textContent: `${label} ×`, title: "remove this filter",
      onclick: () => {
        const column = charted.find(c => c.key === key);
        if (column) return clearChart(column);
        if (key === "map") return select(null);
        if (key === "expression") document.getElementById("expression").value = "";
        return ask({op: "filter", key});
      }});
    chip.dataset.key = key;
    chips.insertBefore(chip, document.getElementById("expression-error"));
  }
}
function clearFilters() {
  for (const column of charted) { column.range = null; column.chosen = null; }
  document.getElementById("expression").value = "";
  // The map's box or lasso goes with its filter, outline and chip.
  selection = null;
  return ask({op: "clear"});
}

// ---- Colour: every point's byte into a palette of at most PALETTE colours (the
// engine's colouring()).
let current = null;           // the colouring shown
let paletteUniform = new Float32Array(4 * PALETTE);
function setPalette(palette) {
  paletteUniform = new Float32Array(4 * PALETTE);
  palette.forEach((colour, k) => paletteUniform.set([...colour.map(c => c / 255), 1], 4 * k));
}
function upload(buffer, bytes) {
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferSubData(gl.ARRAY_BUFFER, 0, bytes);
}
// A promise kept once the frame holding the latest change is drawn.
function drawn() {
  return new Promise(resolve => requestAnimationFrame(() => resolve()));
}
function valueText(column, i) {
  const value = column.value(i);
  return value === null ? "" : column.kind === "number" ? formatNumber(value, column.integer) : String(value);
}
function categoryOf(i) {
  if (!current) return "";
  return current.value(i) === null ? (current.none || "no value") : valueText(current, i);
}

function drawLegend() {
  const legend = document.getElementById("legend");
  legend.replaceChildren();
  if (!current) return;
  if (current.kind === "number") {
    const bar = element("div", {id: "colour-bar"});
    bar.style.background = `linear-gradient(to right, ${DATA.sequential.join(", ")})`;
    const [low, high] = current.scale;
    legend.append(bar, element("div", {className: "scale"},
      element("span", {textContent: formatNumber(low, current.integer)}),
      element("span", {textContent: current.title}),
      element("span", {textContent: formatNumber(high, current.integer)})));
    if (low > current.low || high < current.high) {
      legend.appendChild(element("div", {className: "muted"},
        `values from ${formatNumber(current.low, current.integer)} to ` +
        `${formatNumber(current.high, current.integer)}: beyond the bar in its end colours`));
    }
    const nones = current.all[current.nBins];
    if (nones) legend.appendChild(element("div", {}, swatch(DATA.none_colour), `no value (${thousands(nones)})`));
    return;
  }
  const entries = current.top.map(code => [code, current.names[code], current.colours[code], current.counts[code]]);
  for (const [code, name, colour, count] of entries) {
    const row = element("div", {onclick: () => listGroup(code)}, swatch(colour), `${name} (${thousands(count)})`);
    row.dataset.code = code;
    legend.appendChild(row);
  }
  if (current.others) {
    let rest = n - current.noneCount;
    for (const code of current.top) rest -= current.counts[code];
    legend.appendChild(element("div", {className: "muted"}, swatch(DATA.other_colour),
      `(other ${thousands(current.others)}: ${thousands(rest)} sentences)`));
  }
  if (current.noneCount) {
    const row = element("div", {onclick: () => listGroup(-1)}, swatch(DATA.none_colour),
                        `${current.none} (${thousands(current.noneCount)})`);
    row.dataset.code = -1;
    legend.appendChild(row);
  }
}
function swatch(colour) {
  const made = element("span", {className: "swatch"});
  made.style.background = colour;
  return made;
}
let colourIndex = -1;          // the colouring's index among the columns (-1: none)
function colourBy(index) {
  current = columns[index] || null;
  colourIndex = index;
  return ask({op: "colour", index});
}

// ---- Lists of sentences, the chosen point and its neighbours.
function showList(title, indices) {
  document.getElementById("list-title").textContent = title;
  const list = document.getElementById("list");
  list.replaceChildren();
  for (const i of indices.slice(0, LISTED)) {
    list.appendChild(element("li", {textContent: texts.at(i), title: ids.at(i), onclick: () => choose(i)}));
  }
  if (indices.length > LISTED) {
    list.appendChild(element("li", {className: "muted",
      textContent: `and ${thousands(indices.length - LISTED)} more`}));
  }
}
function listGroup(code) {
  const name = code < 0 ? current.none : current.names[code];
  const found = [];
  for (let i = 0; i < n; i++) if (current.codes[i] === code) found.push(i);
  showList(`${current.title}: ${name} (${thousands(found.length)} sentences)`, found);
}
function nearest(i) {
  if (!neighbours) return [];
  const out = [];
  for (let j = 0; j < neighbours.k; j++) {
    const other = neighbours.indices[i * neighbours.k + j];
    if (other !== 0xFFFFFFFF) out.push([other, neighbours.cosines[i * neighbours.k + j] / 10000]);
  }
  return out;
}
function choose(i) {
  const near = nearest(i);
  // The rings first, drawn and sent on to the GPU while this thread fills the side panel.
  mark("chosen", Int32Array.from([i, ...near.map(([other]) => other)]));
  drawNow();
  const point = document.getElementById("point");
  point.replaceChildren();
  const fields = [["id", ids.at(i)], ["text", texts.at(i)],
                  ...columns.map(c => [c.title, c.value(i) === null ? "" : valueText(c, i)])];
  for (const [label, value] of fields) {
    if (value !== "") point.append(element("dt", {textContent: label}), element("dd", {textContent: value}));
  }
  document.getElementById("neighbours-title").textContent = near.length
    ? `Its ${near.length} nearest in the original space (cosine), ringed black on the map:` : "";
  document.getElementById("neighbours").replaceChildren(...near.map(([other, cosine]) =>
    element("li", {textContent: `${cosine.toFixed(3)} · ${texts.at(other)}`, title: ids.at(other),
                   onclick: () => choose(other)})));
  if (current && current.kind === "category") listGroup(current.codes[i]);
  return drawn();
}

// How long each step of opening took (ms), for bench/bench_web_map.py.
const stages = {};
let stageEnd = 0;
function stage(name) {
  const now = performance.now();
  stages[name] = now - stageEnd;
  stageEnd = now;
}
// The engine: the page's worker, made from engine.js's own script element (a Blob URL,
// still one file, no network) and handed the unpacked payload (moved, not copied: this
// thread has read what it draws). A browser that refuses the worker, or a worker that
// dies (before it is ready or after), leaves the work to the same functions here, on
// this thread's arrays, every change asked so far asked again, in order: the state they
// made is made again, and the latest is drawn. The body's data-engine says which.
function startEngine(bytes, payload, colour) {
  const inPage = () => {
    const filter = crossFilter(payload);
    filter.handle({op: "colour", index: colour});
    document.body.dataset.engine = "page";
    return {post: message => Promise.resolve().then(() => receive(filter.handle(message).answer))};
  };
  try {
    const source = `${document.getElementById("sentspace-engine").textContent}\nfilterWorker();`;
    const worker = new Worker(URL.createObjectURL(new Blob([source], {type: "text/javascript"})));
    const sent = [];   // every change asked of it, to be asked again of the page
    worker.onmessage = ({data}) => receive(data);
    worker.onerror = event => {
      event.preventDefault();
      worker.terminate();
      engine = inPage();
      for (const message of sent) engine.post(message);
    };
    worker.postMessage({op: "load", manifest: MANIFEST, bytes: bytes.buffer, colour}, [bytes.buffer]);
    document.body.dataset.engine = "worker";
    engine = {post: message => {
      sent.push(message);
      worker.postMessage(message);
    }};
  } catch (refused) {
    engine = inPage();
  }
}
async function start() {
  stage("parse");
  document.getElementById("title").textContent = DATA.title;
  const provenance = document.getElementById("provenance");
  for (const [label, value] of DATA.provenance) {
    provenance.append(element("dt", {textContent: label}), element("dd", {textContent: value}));
  }
  const bytes = await unpack();
  stage("unpack");
  const payload = readPayload(DATA, bytes, true);
  ({xy, texts, ids, neighbours, columns} = payload);
  charted = columns.filter(c => c.kind !== "text");
  stage("columns");
  const names = Object.keys(DATA.names);
  document.getElementById("names").textContent = names.length ? `names ${names.join(", ")}` : "";
  const select = document.getElementById("colouring");
  columns.forEach((c, index) => { if (c.kind !== "text") select.add(new Option(c.title, index)); });
  if (!charted.length) select.add(new Option("one colour", -1));
  current = charted.find(c => c.title === DATA.colour) || charted[0] || null;
  const colour = colourIndex = columns.indexOf(current);
  if (current) select.value = colour;
  // The first view, drawn before the worker is asked anything: no filter, every point
  // in its colour, every row.
  const first = colouring(DATA, current, n);
  colourBytes = first.bytes;
  layerBytes = layers(new Uint8Array(n), first.grey);
  setPalette(first.palette);
  startRenderer();
  stage("renderer");
  buildCharts();
  drawCharts();
  drawLegend();
  tableRows = Int32Array.from({length: n}, (_, i) => i);
  drawTable();
  stage("charts");
  await drawn();
  stage("drawn");
  startEngine(bytes, payload, colour);
  document.body.dataset.asked = document.body.dataset.applied = 0;
  select.onchange = () => colourBy(Number(select.value));
  listenToTheMap();
  const box = document.getElementById("search");
  let typing = null;
  box.addEventListener("input", () => {
    clearTimeout(typing);
    typing = setTimeout(() => search(box.value), 150);
  });
  const expression = document.getElementById("expression");
  expression.addEventListener("keydown", event => {
    if (event.key === "Enter") applyExpression(expression.value);
  });
  document.getElementById("export-csv").onclick = () => exportRows("csv");
  document.getElementById("export-jsonl").onclick = () => exportRows("jsonl");
  document.getElementById("clear-filters").onclick = clearFilters;
  document.getElementById("previous").onclick = () => { pageStart = Math.max(0, pageStart - PAGE); drawPage(); };
  document.getElementById("next").onclick = () => {
    if (pageStart + PAGE < tableRows.length) pageStart += PAGE;
    drawPage();
  };
  document.getElementById("loading").remove();
  document.body.dataset.readyAt = performance.now();
  document.body.dataset.ready = "true";
}
start().catch(problem => {
  document.getElementById("loading").textContent = `the map could not be drawn: ${problem.message}`;
  document.getElementById("loading").className = "error";
  throw problem;
});
