"use strict";
// The page's work over every point (app/exporters/web_map.py): the payload's sections,
// each column's bars or bins, the colour bytes, word search and the cross-filter. This
// script, with expression.js before it, is also the source of the page's worker (a Blob
// URL: still one file, no network), which holds the per-point state and answers each
// change; a browser that refuses the worker runs the very same functions in the page.
// Nothing here touches the document.
const BINS = 30;      // a histogram's bins at most
const STEPS = 64;     // steps of the continuous colour scale
// A search's rings at most: past a few hundred they cover the map rather than point at
// anything (and SwiftShader draws 200,000 rings slower than the million points); the
// search leaves the other points faded, so every match still stands out.
const RINGED = 1000;

// ---- The payload: typed arrays laid end to end, `data.sections` saying where.
const TYPES = {f8: Float64Array, f4: Float32Array, u4: Uint32Array, i4: Int32Array, i2: Int16Array,
               i1: Int8Array, u1: Uint8Array};
function section(data, bytes, name) {
  const {offset, dtype, length, planes} = data.sections[name];
  if (dtype === "utf8") return new TextDecoder().decode(bytes.subarray(offset, offset + length));
  const out = new Uint8Array(length * planes);
  if (planes === 1) out.set(bytes.subarray(offset, offset + length));
  // Stored byte plane by byte plane (it packs tighter): interleaved back here.
  for (let k = 0; planes > 1 && k < planes; k++) {
    const plane = bytes.subarray(offset + k * length, offset + (k + 1) * length);
    for (let i = 0; i < length; i++) out[i * planes + k] = plane[i];
  }
  return new TYPES[dtype](out.buffer);
}
// Texts as one string cut where each ends: a sentence becomes a string when shown.
function textList(data, bytes, name) {
  const all = section(data, bytes, name), ends = section(data, bytes, name + ".ends");
  return {at: i => all.substring(i ? ends[i - 1] : 0, ends[i]), length: ends.length, all, ends};
}
// Everything the page draws and filters, read from the unpacked payload: the coordinates,
// texts, ids and columns (the neighbours only where `withNeighbours`: the worker has no use
// for them).
function readPayload(data, bytes, withNeighbours) {
  const n = data.n;
  return {
    data,
    xy: section(data, bytes, data.coordinates),
    texts: textList(data, bytes, data.texts),
    ids: data.ids ? textList(data, bytes, data.ids) : {at: i => String(i), length: n},
    neighbours: withNeighbours && data.neighbours && {k: data.neighbours.k,
      indices: section(data, bytes, data.neighbours.indices),
      cosines: section(data, bytes, data.neighbours.cosines)},
    columns: readColumns(data, bytes),
  };
}

const THOUSANDS = new Intl.NumberFormat("en-US", {maximumFractionDigits: 0});
function thousands(value) { return THOUSANDS.format(value); }
function formatNumber(value, integer) {
  if (Number.isNaN(value)) return "";
  return integer ? thousands(Math.round(value)) : String(Number(value.toPrecision(3)));
}
function identifier(title) {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "column";
}
function rgb(hex) { return [1, 3, 5].map(k => parseInt(hex.slice(k, k + 2), 16)); }

// ---- Columns. Each gets `slot`: its bar or bin per point (the last one: no value), so
// that counting a chart is one pass over a typed array.
function categoryColumn(data, column, codes) {
  const n = codes.length, counts = new Float64Array(column.names.length);
  let noneCount = 0;
  for (let i = 0; i < n; i++) codes[i] < 0 ? noneCount++ : counts[codes[i]]++;
  const ranked = Array.from(counts.keys()).sort((a, b) => counts[b] - counts[a] || a - b);
  // As many named as the window names (columns.named_count): all, or the top ten.
  const named = column.named;
  const top = ranked.slice(0, named), barOf = new Uint8Array(counts.length).fill(named);
  top.forEach((code, bar) => { barOf[code] = bar; });
  const bars = top.map(code => column.names[code]);
  const others = counts.length - top.length;
  const slot = new Uint8Array(n);
  for (let i = 0; i < n; i++) slot[i] = codes[i] < 0 ? named + 1 : barOf[codes[i]];
  // As in the window: the named in colours of their own (the column's, else the
  // palette's by rank), every other category in one warm grey that the legend names.
  const colours = new Array(column.names.length).fill(data.other_colour);
  top.forEach((code, rank) => {
    colours[code] = column.explicit ? column.colours[code] : data.categorical[rank % data.categorical.length];
  });
  return {...column, colours, codes, counts, noneCount, top, slot, others, nSlots: named + 2,
          bars: [...bars, others ? `(other ${thousands(others)})` : null,
                 noneCount ? column.none : null],
          value: i => codes[i] < 0 ? null : column.names[codes[i]]};
}
function numberColumn(column, values) {
  const n = values.length;
  let low = Infinity, high = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i];
    if (v < low) low = v;
    if (v > high) high = v;
  }
  if (low > high) { low = 0; high = 0; }
  let width, nBins;
  if (column.integer) {
    width = Math.max(1, Math.ceil((high - low + 1) / BINS));
    nBins = Math.ceil((high - low + 1) / width);
  } else {
    nBins = high > low ? BINS : 1;
    width = high > low ? (high - low) / BINS : 1;
  }
  const slot = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const v = values[i];
    slot[i] = Number.isNaN(v) ? nBins : Math.min(nBins - 1, Math.floor((v - low) / width));
  }
  const edge = bin => low + bin * width;
  const span = (first, last) => column.integer
    ? (first === last - 1 && width === 1 ? formatNumber(edge(first), true)
       : `${formatNumber(edge(first), true)}–${formatNumber(edge(last) - 1, true)}`)
    : `${formatNumber(edge(first), false)}–${formatNumber(Math.min(edge(last), high), false)}`;
  return {...column, values, low, high, width, slot, nSlots: nBins + 1, nBins, span,
          value: i => Number.isNaN(values[i]) ? null : values[i]};
}
function readColumns(data, bytes) {
  const n = data.n, taken = new Set(["id", "text", "matched"]);
  return data.columns.map(column => {
    let made;
    if (column.kind === "category") {
      // A column of one value is stored once.
      const codes = "codes" in column ? section(data, bytes, column.codes) : new Int32Array(n).fill(column.constant);
      made = categoryColumn(data, column, codes);
    } else if (column.kind === "number") {
      const values = "values" in column ? section(data, bytes, column.values)
        : new Float32Array(n).fill(column.constant ?? NaN);
      made = numberColumn(column, values);
    } else {
      const values = textList(data, bytes, column.values);
      made = {...column, value: i => values.at(i)};
    }
    // A name for the table's keys, unique among them.
    let key = identifier(column.title);
    while (taken.has(key)) key += "_";
    taken.add(key);
    return {...made, key};
  });
}

// ---- Colour: every point's byte into a palette of at most PALETTE colours (rgb, 0-255),
// and which points are grey (another category, no value), drawn under the others.
function colouring(data, column, n) {
  const bytes = new Uint8Array(n), grey = new Uint8Array(n);
  let palette;
  if (column && column.kind === "number") {
    const stops = data.sequential.map(rgb);
    palette = [];
    for (let s = 0; s < STEPS; s++) {
      const at = s / (STEPS - 1) * (stops.length - 1), k = Math.min(stops.length - 2, Math.floor(at));
      const t = at - k;
      palette.push(stops[k].map((c, j) => Math.round(c + (stops[k + 1][j] - c) * t)));
    }
    palette.push(rgb(data.none_colour));
    // The window's scale (palette.number_colours): a long tail beyond it in its end colours.
    const {values} = column, [low, high] = column.scale;
    const scale = high > low ? (STEPS - 1) / (high - low) : 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (Number.isNaN(v)) { bytes[i] = STEPS; grey[i] = 1; }
      else bytes[i] = Math.round((Math.min(high, Math.max(low, v)) - low) * scale);
    }
  } else if (column) {
    const hexes = [...new Set(column.colours)];
    palette = hexes.map(rgb);
    const colourOf = Uint8Array.from(column.colours, c => hexes.indexOf(c));
    const named = new Uint8Array(column.names.length);
    for (const code of column.top) named[code] = 1;
    const none = palette.length;
    palette.push(rgb(data.none_colour));
    const codes = column.codes;
    for (let i = 0; i < n; i++) {
      const code = codes[i];
      if (code < 0) { bytes[i] = none; grey[i] = 1; }
      else { bytes[i] = colourOf[code]; grey[i] = named[code] ? 0 : 1; }
    }
  } else palette = [rgb(data.none_colour)];
  return {palette, bytes, grey};
}
// Each point's layer: 0 left out by the filters or not matching the search (drawn
// faded), 1 grey, 2 in a colour of its own.
function layers(fails, grey, matched) {
  const n = grey.length, out = new Uint8Array(n);
  if (matched) for (let i = 0; i < n; i++) out[i] = fails[i] || !matched[i] ? 0 : grey[i] ? 1 : 2;
  else for (let i = 0; i < n; i++) out[i] = fails[i] ? 0 : grey[i] ? 1 : 2;
  return out;
}

// ---- Search by words. What finds them: the texts lower-cased end to end, scanned per
// query. A word of the query matches where it stands between two characters that are
// not letters or digits: the tokens words() would have cut, without cutting them.
function words(text) { return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) || []; }
function textScanner(all, cuts) {
  const n = cuts.length, parts = new Array(n), ends = new Float64Array(n);
  // Each text lower-cased on its own, as words() does, then joined by a line break.
  let at = 0;
  for (let i = 0; i < n; i++) {
    parts[i] = all.substring(i ? cuts[i - 1] : 0, cuts[i]).toLowerCase();
    at += parts[i].length;
    ends[i] = at;
    at += 1;
  }
  const lowered = parts.join("\n");
  const WORD = /[\p{L}\p{N}]/u;
  const word = code => code < 128 ? (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90)
    : WORD.test(String.fromCodePoint(code));
  // Whether a letter or digit ends just before `at` or starts at `at` (surrogate pairs read whole).
  const wordBefore = at => {
    if (at <= 0) return false;
    const low = lowered.charCodeAt(at - 1);
    return word(low >= 0xDC00 && low <= 0xDFFF && at >= 2 ? lowered.codePointAt(at - 2) : low);
  };
  const wordAt = at => at < lowered.length && word(lowered.codePointAt(at));
  // Per text: how many of the (distinct, lower-case) words it has.
  return wanted => {
    const matched = new Uint8Array(n);
    for (const one of wanted) {
      let sentence = 0, last = -1;
      for (let at = lowered.indexOf(one); at >= 0; at = lowered.indexOf(one, at + 1)) {
        if (wordBefore(at) || wordAt(at + one.length)) continue;
        while (ends[sentence] <= at) sentence++;
        if (sentence !== last) { matched[sentence]++; last = sentence; }
      }
    }
    return matched;
  };
}

// The same search from each word's sentences, made in slices (`indexing` yields after
// each SLICE texts, so that the worker answers a change between two): a sentence is in
// a word's list once, however often it has the word, as the scan counts it. Returns the
// steps, then {find(wanted) -> matched}.
const SLICE = 2000;
const INDEXED = 16e6;
function* indexing(texts) {
  const n = texts.length, lists = new Map();
  for (let i = 0; i < n; i++) {
    for (const word of new Set(words(texts.at(i)))) {
      const list = lists.get(word);
      if (list) list.push(i);
      else lists.set(word, [i]);
    }
    if (i % SLICE === SLICE - 1) yield;
  }
  const sentences = new Map();
  for (const [word, list] of lists) sentences.set(word, Int32Array.from(list));
  return wanted => {
    const matched = new Uint8Array(n);
    for (const one of wanted) {
      const list = sentences.get(one) || [];
      for (let k = 0; k < list.length; k++) matched[list[k]]++;
    }
    return matched;
  };
}

// The columns as the filter language (expression.js) reads them.
function expressionTable(data, columns) {
  return {
    n: data.n, names: data.names,
    column: title => {
      const column = columns.find(c => c.title === title);
      return column.kind === "number" ? column
        : {kind: "category", title, names: column.names, codes: column.codes, none: column.none,
           numbers: column.numbers};
    },
  };
}

// ---- The cross-filter: each filter keeps a pass mask; `fails` counts the filters a
// point fails. `handle` takes one change (a message of the page) and answers what it
// changed: each chart's counts that can have changed, every point's layer byte, the
// table's rows in order, the colour bytes, the search's matches.
function crossFilter({data, xy, texts, ids, columns}) {
  const n = data.n;
  const charted = columns.filter(c => c.kind !== "text");
  const byKey = new Map(columns.map(c => [c.key, c]));
  const byTitle = new Map(columns.map(c => [c.title, c]));
  const table = expressionTable(data, columns);
  const fails = new Uint8Array(n);
  const filters = new Map();   // key -> {pass: Uint8Array, label: string}
  let grey = colouring(data, null, n).grey;
  let find = null;             // the search: the scan, made at the first use (or in the
                               // idle time), then the word index once it is built
  let matched = null, wanted = [];   // per point: how many of the query's words it has
  let sortKey = null, sortDescending = false;
  let changes = 0;                   // asked by the page (numbered), the warm-ups not
  const sortedOrders = new Map();    // key -> every point in ascending order (no value last)

  function setFilter(key, pass, label) {
    const old = filters.get(key);
    // One pass over the points: a filter replaced changes each count by old - new.
    if (old && pass) { const p = old.pass; for (let i = 0; i < n; i++) fails[i] += p[i] - pass[i]; }
    else if (old) { const p = old.pass; for (let i = 0; i < n; i++) fails[i] -= 1 - p[i]; }
    else if (pass) for (let i = 0; i < n; i++) fails[i] += 1 - pass[i];
    if (pass) filters.set(key, {pass, label});
    else filters.delete(key);
  }
  function passing(slot, chosen) {
    const pass = new Uint8Array(n);
    for (let i = 0; i < n; i++) pass[i] = chosen[slot[i]];
    return pass;
  }
  // The points inside a box or a lasso (even-odd ray casting), in data space.
  function inside(shape) {
    const pass = new Uint8Array(n);
    const xs = shape.points.map(p => p[0]), ys = shape.points.map(p => p[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const px = Float64Array.from(xs), py = Float64Array.from(ys), m = px.length;
    const box = shape.kind === "box";
    for (let i = 0; i < n; i++) {
      const x = xy[2 * i], y = xy[2 * i + 1];
      if (x < x0 || x > x1 || y < y0 || y > y1) continue;
      if (box) { pass[i] = 1; continue; }
      let odd = 0;
      for (let a = 0, b = m - 1; a < m; b = a++) {
        const ay = py[a], by = py[b];
        if ((ay > y) !== (by > y) && x < (px[b] - px[a]) * (y - ay) / (by - ay) + px[a]) odd ^= 1;
      }
      pass[i] = odd;
    }
    return pass;
  }
  // A chart counts the points passing every filter but its own (so it can be widened);
  // with no other filter, every point: its totals, counted once (a clear recounts none).
  const totals = new Map();
  function chartCounts(column) {
    const counts = new Float64Array(column.nSlots), slot = column.slot;
    const own = filters.get(column.key);
    if (filters.size === (own ? 1 : 0)) {
      if (!totals.has(column.key)) {
        const all = new Float64Array(column.nSlots);
        for (let i = 0; i < n; i++) all[slot[i]]++;
        totals.set(column.key, all);
      }
      counts.set(totals.get(column.key));
      return counts;
    }
    if (!own) { for (let i = 0; i < n; i++) if (fails[i] === 0) counts[slot[i]]++; }
    else {
      const pass = own.pass;
      for (let i = 0; i < n; i++) {
        const f = fails[i];
        if (f === 0 || (f === 1 && !pass[i])) counts[slot[i]]++;
      }
    }
    return counts;
  }
  function sortedOrder(key) {
    if (sortedOrders.has(key)) return sortedOrders.get(key);
    const column = byKey.get(key);
    const order = Uint32Array.from({length: n}, (_, i) => i);
    if (column && column.kind === "number") {
      const values = column.values;
      order.sort((a, b) => {
        const va = values[a], vb = values[b], aNone = Number.isNaN(va), bNone = Number.isNaN(vb);
        if (aNone || bNone) return aNone - bNone || a - b;
        return va - vb || a - b;
      });
    } else {
      const keyOf = key === "id" ? (i => ids.at(i)) : key === "text" ? (i => texts.at(i)) : column.value;
      const keys = Array.from(order, keyOf);
      order.sort((a, b) => {
        const ka = keys[a], kb = keys[b];
        if (ka === null || kb === null) return (ka === null) - (kb === null) || a - b;
        return ka < kb ? -1 : ka > kb ? 1 : a - b;
      });
    }
    sortedOrders.set(key, order);
    return order;
  }
  // The table: the points that pass every filter (and match the search), in order.
  function rowsShown() {
    let count = 0;
    const out = new Int32Array(n);
    const keep = i => fails[i] === 0 && (!matched || matched[i]);
    if (sortKey !== null) {
      const order = sortedOrder(sortKey);
      // Descending: the values reversed, points without a value still last.
      const column = byKey.get(sortKey);
      let withValue = n;
      if (column) { while (withValue > 0 && column.value(order[withValue - 1]) === null) withValue--; }
      if (sortDescending) {
        for (let k = withValue - 1; k >= 0; k--) if (keep(order[k])) out[count++] = order[k];
        for (let k = withValue; k < n; k++) if (keep(order[k])) out[count++] = order[k];
      } else for (let k = 0; k < n; k++) if (keep(order[k])) out[count++] = order[k];
      return out.slice(0, count);
    }
    // The common case in plain loops: a call per point costs as much as the test.
    if (matched) { for (let i = 0; i < n; i++) if (fails[i] === 0 && matched[i]) out[count++] = i; }
    else for (let i = 0; i < n; i++) if (fails[i] === 0) out[count++] = i;
    const rows = out.slice(0, count);
    if (matched) {
      // By words matched, most first, then in corpus order: a counting sort.
      const starts = new Int32Array(wanted.length + 2);
      const most = wanted.length;
      for (let r = 0; r < count; r++) starts[most - matched[rows[r]] + 1]++;
      for (let t = 1; t < starts.length; t++) starts[t] += starts[t - 1];
      const ranked = new Int32Array(count);
      for (let r = 0; r < count; r++) ranked[starts[most - matched[rows[r]]]++] = rows[r];
      return ranked;
    }
    return rows;
  }
  // The search's matches: how many have each number of the words, and those ringed: the
  // ones with the most of them, the first RINGED in the corpus's order (the table's).
  function search(words) {
    wanted = words;
    sortKey = null;
    if (!words.length) { matched = null; return {words}; }
    if (!find) find = textScanner(texts.all, texts.ends);
    matched = find(words);
    const tiers = new Float64Array(words.length + 1);
    for (let i = 0; i < n; i++) tiers[matched[i]]++;
    let best = words.length;
    while (best > 0 && !tiers[best]) best--;
    let count = 0;
    const ringed = new Int32Array(best ? Math.min(RINGED, tiers[best]) : 0);
    for (let i = 0; count < ringed.length; i++) if (matched[i] === best) ringed[count++] = i;
    return {words, tiers, best, ringed, matched: matched.slice()};
  }
  // The pass mask a message asks for: bars or bins chosen, an expression, a map shape.
  function mask(message) {
    if (message.chosen) return passing(byKey.get(message.key).slot, message.chosen);
    if (message.expression) return expressionMask(message.expression, table);
    if (message.shape) return inside(message.shape);
    return null;
  }

  return {
    // The worker's idle time after the page is ready, a step at a time (each a task of
    // its own, so that a change asked meanwhile is answered between two). Until a
    // change comes: the texts lower-cased for the scan, then a search, filters (bins, an
    // expression, a lasso) run through and taken off, each step leaving the engine as it
    // found it, so that a person's first change finds that code compiled (the passes
    // over 145,000 points take 13 ms cold, 3.5 ms at the third run). Then the word index.
    *idle() {
      if (!find) find = textScanner(texts.all, texts.ends);
      const some = [...new Set(words(texts.at(0)))].slice(0, 2);
      const [first, second] = charted.filter(c => c.drawn);
      const everything = column => ({op: "filter", key: column.key, chosen: new Uint8Array(column.nSlots).fill(1)});
      const number = Object.keys(data.names).find(name => byTitle.get(data.names[name])?.kind === "number");
      const lasso = [[-1, -1], [1, -1], [0, 1]].map(([dx, dy]) => [xy[0] + dx, xy[1] + dy]);
      // Every bin chosen, an expression true of every number: no count moves.
      const steps = [
        some.length && [{op: "search", words: some}, {op: "search", words: []}],
        first && [everything(first), second && everything(second), {op: "clear"}],   // counts the first beside its own filter
        number && [{op: "filter", key: "expression", expression: `${number} > 0 or ${number} <= 0`}, {op: "clear"}],
        [{op: "filter", key: "map", shape: {kind: "lasso", points: lasso}}, {op: "clear"}],
      ].filter(Boolean);
      warming: for (let round = 0; round < 3; round++) {
        for (const messages of steps) {
          if (changes) break warming;
          for (const message of messages) if (message) this.handle(message);
          yield;
        }
      }
      yield* this.index();
    },
    // The word index, made in slices (a generator: each step one slice) in the idle
    // time after the warm-ups; a search then reads each word's sentences instead of
    // scanning every text (145,000 captions: 9 ms -> 1, built in 0.3 s). Past INDEXED
    // characters of text the scan stays: the build would take seconds of a core while
    // the GPU draws the first changes (a million short sentences: 1.9 s), and the scan
    // is a small part of drawing that many points (50 ms of 300).
    *index() {
      if (texts.all.length > INDEXED) return;
      const indexed = yield* indexing(texts);
      indexed(words(texts.at(0)));   // its code compiled before a person's first search
      find = indexed;
    },
    // The answer to one change, and the buffers it hands over.
    handle(message) {
      if (message.seq) changes++;
      const answer = {seq: message.seq}, transfer = [];
      const give = (name, array) => { answer[name] = array; transfer.push(array.buffer); };
      const filtered = changed => {
        answer.filters = [...filters].map(([key, {label}]) => [key, label]);
        // A change of a chart's own filter leaves its counts as they were.
        answer.counts = {};
        for (const column of charted) {
          if (column.drawn && column.key !== changed) {
            answer.counts[column.key] = chartCounts(column);
            transfer.push(answer.counts[column.key].buffer);
          }
        }
        give("layer", layers(fails, grey, matched));
        give("rows", rowsShown());
      };
      switch (message.op) {
        case "filter": {
          let pass;
          try { pass = mask(message); }
          catch (problem) {
            if (!(problem instanceof ExpressionError)) throw problem;
            answer.error = problem.message;   // the filter is kept as it was
            return {answer, transfer};
          }
          let label = message.label;
          if (message.shape) {
            let count = 0;
            for (let i = 0; i < n; i++) count += pass[i];
            label = `Map selection (${thousands(count)})`;
          }
          setFilter(message.key, pass, label);
          filtered(message.key);
          if (message.key === "expression") answer.error = "";
          break;
        }
        case "clear":
          fails.fill(0);
          filters.clear();
          filtered(null);
          answer.error = "";
          break;
        case "search": {
          const found = search(message.words);
          for (const name of ["tiers", "ringed", "matched"]) if (found[name]) transfer.push(found[name].buffer);
          answer.search = found;
          give("layer", layers(fails, grey, matched));
          give("rows", rowsShown());
          break;
        }
        case "sort":
          sortKey = message.key;
          sortDescending = message.descending;
          give("rows", rowsShown());
          break;
        case "colour": {
          const coloured = colouring(data, columns[message.index] || null, n);
          grey = coloured.grey;
          give("colour", coloured.bytes);
          answer.palette = coloured.palette;
          give("layer", layers(fails, grey, matched));
          break;
        }
        default: throw new Error(`no such change: ${message.op}`);
      }
      return {answer, transfer};
    },
  };
}

// The worker: given the manifest's text and the unpacked payload once (handed over, not
// copied), it reads what it needs and answers each change in turn. An error is sent back
// as such, so the page can say so.
function filterWorker() {
  let filter = null;
  self.onmessage = ({data: message}) => {
    try {
      if (message.op === "load") {
        const data = JSON.parse(message.manifest);
        filter = crossFilter(readPayload(data, new Uint8Array(message.bytes), false));
        filter.handle({op: "colour", index: message.colour});
        // The idle work's steps, each a task posted on a channel of its own (a timer's
        // chain would wait 4 ms a step). It only makes changes faster: if it fails,
        // it stops, and the page works as it would without it.
        const steps = filter.idle(), channel = new MessageChannel();
        channel.port1.onmessage = () => {
          try { if (!steps.next().done) channel.port2.postMessage(null); }
          catch (problem) { console.warn("the page's idle work stopped:", problem); }
        };
        channel.port2.postMessage(null);
        return;
      }
      const {answer, transfer} = filter.handle(message);
      postMessage(answer, transfer);
    } catch (problem) {
      postMessage({seq: message.seq, failed: String(problem && problem.stack || problem)});
    }
  };
}
