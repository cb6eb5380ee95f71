"use strict";
// The filter language of `sentspace eval --where` and the window (app/filters.py), parsed
// here by a grammar of its own and evaluated on whole typed arrays; typed text is never
// run as code. As in Python: `or` < `and` < `not` < comparisons (chained: 5 <= words < 10;
// in [...], not in [...]) < `|` < `&` < `~`; AND, OR, NOT and IN in capitals too.
// expressionMask(source, table) -> Uint8Array (1: the sentence passes), where `table` is
// {n, names: {name: title}, column(title)} and a column is {kind: "number", title, values}
// or {kind: "category", title, names, codes, none, numbers}. A bad expression throws an
// ExpressionError naming the column (1-based) where it went wrong, as Python's does.

class ExpressionError extends Error {}

const SQL_WORDS = {AND: "and", OR: "or", NOT: "not", IN: "in"};
const KEYWORDS = new Set(["and", "or", "not", "in", "is"]);
const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);

function tokenise(source) {
  const tokens = [];
  const pattern = new RegExp(String.raw`\s*(?:` +
    String.raw`(?<number>(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)` +
    String.raw`|(?<string>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')` +
    String.raw`|(?<name>[\p{L}_][\p{L}\p{N}_]*)` +
    String.raw`|(?<operator>==|!=|<=|>=|[<>()\[\],&|~\-+])` +
    String.raw`|(?<other>\S))`, "uy");
  let at = 0;
  while (at < source.length) {
    pattern.lastIndex = at;
    const match = pattern.exec(source);
    if (!match || match[0].length === 0) break;
    const {number, string, name, operator, other} = match.groups;
    const start = match.index + match[0].length - (number || string || name || operator || other || "").length;
    at = pattern.lastIndex;
    if (number !== undefined) tokens.push({type: "number", text: number, start,
                                           value: Number(number.replace(/_/g, ""))});
    else if (string !== undefined) tokens.push({type: "string", text: string, start, value: unquote(string)});
    else if (name !== undefined) {
      const word = SQL_WORDS[name] || name;
      tokens.push({type: KEYWORDS.has(word) ? word : "name", text: name, start});
    } else if (operator !== undefined) tokens.push({type: operator, text: operator, start});
    else if (other === "=") {
      throw new ExpressionError(`filter expression, column ${start + 1}: invalid syntax; compare with ==`);
    } else throw new ExpressionError(`filter expression, column ${start + 1}: invalid character '${other}'`);
  }
  tokens.push({type: "end", text: "", start: source.trimEnd().length});
  return tokens;
}

function unquote(literal) {
  const escapes = {n: "\n", t: "\t", r: "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0"};
  return literal.slice(1, -1).replace(/\\(u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|.)/gs, (_, code) =>
    code.length > 1 ? String.fromCharCode(parseInt(code.slice(1), 16))
      : code in escapes ? escapes[code] : "\\" + code);
}

// The tree: {type, start, end, ...}, positions into the source for the error messages.
function parse(source) {
  const tokens = tokenise(source);
  let next = 0;
  const peek = () => tokens[next];
  const take = () => tokens[next++];
  const fail = (token, problem) => {
    if (token.type === "end") {
      throw new ExpressionError(`filter expression, column ${token.start + 1}: it ends too early ` +
                                "(a value or condition is missing)");
    }
    throw new ExpressionError(`filter expression, column ${token.start + 1}: ${problem}`);
  };
  const expect = type => peek().type === type ? take() : fail(peek(), "invalid syntax");
  const span = (type, first, last, extra) => ({type, start: first.start, end: last.end, ...extra});

  function disjunction() {
    let node = conjunction();
    const parts = [node];
    while (peek().type === "or") { take(); parts.push(conjunction()); }
    if (parts.length > 1) node = span("or", parts[0], parts[parts.length - 1], {parts});
    return node;
  }
  function conjunction() {
    const parts = [negation()];
    while (peek().type === "and") { take(); parts.push(negation()); }
    return parts.length > 1 ? span("and", parts[0], parts[parts.length - 1], {parts}) : parts[0];
  }
  function negation() {
    if (peek().type === "not") {
      const word = take();
      const operand = negation();
      return {type: "not", start: word.start, end: operand.end, operand};
    }
    return comparison();
  }
  function comparison() {
    const first = bitOr();
    const operands = [first], operators = [];
    for (;;) {
      const token = peek();
      let operator = null;
      if (COMPARISONS.has(token.type)) operator = take().type;
      else if (token.type === "in") { take(); operator = "in"; }
      else if (token.type === "not" && tokens[next + 1].type === "in") { take(); take(); operator = "not in"; }
      else if (token.type === "is") {
        take();
        if (peek().type === "not") take();
        operator = "is";
      }
      if (!operator) break;
      operators.push(operator);
      operands.push(bitOr());
    }
    return operators.length ? span("compare", first, operands[operands.length - 1], {operands, operators})
      : first;
  }
  function bitOr() {
    let node = bitAnd();
    while (peek().type === "|") { take(); const right = bitAnd(); node = span("|", node, right, {left: node, right}); }
    return node;
  }
  function bitAnd() {
    let node = unary();
    while (peek().type === "&") { take(); const right = unary(); node = span("&", node, right, {left: node, right}); }
    return node;
  }
  function unary() {
    const token = peek();
    if (token.type === "~" || token.type === "-" || token.type === "+") {
      take();
      const operand = unary();
      return {type: token.type === "~" ? "invert" : token.type === "-" ? "minus" : "plus",
              start: token.start, end: operand.end, operand};
    }
    return atom();
  }
  function atom() {
    const token = take();
    const end = token.start + token.text.length;
    if (token.type === "number") return {type: "constant", value: token.value, start: token.start, end};
    if (token.type === "string") {
      // Adjacent strings are one, as in Python: 'it''s' is "its".
      let value = token.value, last = token;
      while (peek().type === "string") { last = take(); value += last.value; }
      return {type: "constant", value, start: token.start, end: last.start + last.text.length};
    }
    if (token.type === "name" && peek().type === "(") {
      // A call, as Python would parse it, named whole in the error.
      let depth = 0, last;
      do {
        last = take();
        depth += last.type === "(" ? 1 : last.type === ")" ? -1 : 0;
      } while (depth > 0 && last.type !== "end");
      throw new ExpressionError(`filter expression, column ${token.start + 1} ` +
        `(${pythonRepr(source.slice(token.start, last.start + 1))}): a function call is not allowed; ` +
        'use comparisons, and, or, not, in [...], numbers, "text" and column names');
    }
    if (token.type === "name") return {type: "name", name: token.text, start: token.start, end};
    if (token.type === "[" || token.type === "(") {
      const close = token.type === "[" ? "]" : ")";
      const items = [];
      let comma = false;
      while (peek().type !== close) {
        items.push(disjunction());
        if (peek().type !== ",") break;
        take();
        comma = true;
      }
      const last = expect(close);
      if (token.type === "(" && items.length === 1 && !comma) {
        return items[0];
      }
      return {type: "list", items, start: token.start, end: last.start + 1};
    }
    return fail(token, "invalid syntax");
  }

  const tree = disjunction();
  if (peek().type !== "end") fail(peek(), "invalid syntax");
  return tree;
}

function formatName(value) {
  // Python's f"{value:,.0f}" for whole numbers, f"{value:,.4g}" otherwise (filters._number).
  const commas = text => text.replace(/^(-?\d+)/, whole => whole.replace(/\B(?=(\d{3})+(?!\d))/g, ","));
  if (Number.isInteger(value)) return commas(value.toFixed(0));
  if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
  const [mantissa, exponent] = value.toExponential(3).split("e");
  const power = Number(exponent);
  const trim = text => text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  if (power < -4 || power >= 4) {
    return `${trim(mantissa)}e${power < 0 ? "-" : "+"}${String(Math.abs(power)).padStart(2, "0")}`;
  }
  return commas(trim(value.toFixed(3 - power)));
}

function expressionMask(source, table) {
  const tree = parse(source);
  const n = table.n;
  const where = node => `filter expression, column ${node.start + 1} (${pythonRepr(source.slice(node.start, node.end))})`;
  const error = (node, problem) => new ExpressionError(`${where(node)}: ${problem}`);
  const isMask = value => value instanceof Uint8Array;
  const isColumn = value => value !== null && typeof value === "object" && "kind" in value;

  function condition(node) {
    const value = visit(node);
    if (!isMask(value)) throw error(node, "a value where a condition is needed: compare it, as in words > 10");
    return value;
  }
  function combine(masks, both) {
    const out = masks[0].slice();
    for (const mask of masks.slice(1)) {
      if (both) for (let i = 0; i < n; i++) out[i] &= mask[i];
      else for (let i = 0; i < n; i++) out[i] |= mask[i];
    }
    return out;
  }
  function invert(mask) {
    for (let i = 0; i < n; i++) mask[i] ^= 1;
    return mask;
  }
  function visit(node) {
    switch (node.type) {
      case "or": case "and": return combine(node.parts.map(condition), node.type === "and");
      case "&": case "|": return combine([condition(node.left), condition(node.right)], node.type === "&");
      case "not": case "invert": return invert(condition(node.operand).slice());
      case "minus": case "plus":
        if (node.operand.type === "constant" && typeof node.operand.value === "number") {
          return node.type === "minus" ? -node.operand.value : node.operand.value;
        }
        throw error(node, "only a number may have a minus sign");
      case "constant": return node.value;
      case "name": {
        const title = table.names[node.name] ?? table.names[node.name.toLowerCase()];
        if (title === undefined) {
          throw error(node, `no column is called ${node.name}; the names are ${Object.keys(table.names).sort().join(", ")}`);
        }
        return table.column(title);
      }
      case "list": {
        const values = node.items.map(visit);
        if (values.some(v => isMask(v) || isColumn(v))) throw error(node, "a list holds values only");
        return values;
      }
      case "compare": {
        const masks = [];
        for (let k = 0; k < node.operators.length; k++) {
          masks.push(compare(node.operands[k], node.operators[k], node.operands[k + 1]));
        }
        return combine(masks, true);
      }
    }
    throw error(node, "this is not allowed");
  }
  function compare(leftNode, operator, rightNode) {
    let left = visit(leftNode), right = visit(rightNode);
    if (operator === "in" || operator === "not in") {
      if (!isColumn(left) || !Array.isArray(right)) {
        throw error(rightNode, "in needs a column on its left and a [list] on its right");
      }
      const found = new Uint8Array(n);
      for (const value of right) {
        const one = equal(left, value, rightNode);
        for (let i = 0; i < n; i++) found[i] |= one[i];
      }
      return operator === "not in" ? invert(found) : found;
    }
    if (isColumn(left) === isColumn(right)) throw error(rightNode, "compare a column with a value");
    if (operator === "is") throw error(rightNode, "use == or != to compare");
    if (Array.isArray(left) || Array.isArray(right) || isMask(left) || isMask(right)) {
      throw error(rightNode, "compare a column with a value");
    }
    if (!isColumn(left)) {
      [left, right] = [right, left];
      operator = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}[operator];
    }
    let values, codes = null;
    if (left.kind === "category") {
      if (operator === "==" || operator === "!=") {
        const same = equal(left, right, rightNode);
        return operator === "==" ? same : invert(same);
      }
      if (!left.numbers || typeof right === "string") {
        throw error(rightNode, `${left.title} has categories: compare it with == or !=`);
      }
      values = Float64Array.from([...left.numbers.map(v => v ?? NaN), NaN]);
      codes = left.codes;
    } else if (typeof right === "string") {
      throw error(rightNode, `${left.title} holds numbers; ${pythonRepr(right)} is text`);
    } else {
      values = left.values;
    }
    const out = new Uint8Array(n);
    if (codes) {
      const none = values.length - 1;
      const passes = compared(values, operator, right);
      for (let i = 0; i < n; i++) out[i] = passes[codes[i] < 0 ? none : codes[i]];
      return out;
    }
    return compared(values, operator, right);
  }
  function equal(column, value, node) {
    const out = new Uint8Array(n);
    if (column.kind === "number") {
      if (typeof value === "string") throw error(node, `${column.title} holds numbers; ${pythonRepr(value)} is text`);
      if (Array.isArray(value)) throw error(node, "a list holds values only");
      const values = column.values;
      for (let i = 0; i < n; i++) out[i] = values[i] === value ? 1 : 0;
      return out;
    }
    if (Array.isArray(value)) throw error(node, "a list holds values only");
    const text = typeof value === "string" ? value : formatName(value);
    const codes = column.codes;
    let code;
    if (text === column.none) code = -1;
    else {
      code = column.names.indexOf(text);
      if (code < 0) {
        const shown = column.names.slice(0, 10).join(", ") + (column.names.length > 10 ? ", …" : "");
        throw error(node, `${pythonRepr(text)} is not a value of ${column.title} (${shown})`);
      }
    }
    if (code < 0) for (let i = 0; i < n; i++) out[i] = codes[i] < 0 ? 1 : 0;
    else for (let i = 0; i < n; i++) out[i] = codes[i] === code ? 1 : 0;
    return out;
  }

  const result = visit(tree);
  if (!isMask(result)) throw error(tree, "this is a value, not a condition: compare it, as in words > 10");
  return result;
}

// Each of `values` compared with `value`: a loop per operator (no call per value).
function compared(values, operator, value) {
  const out = new Uint8Array(values.length), m = values.length;
  switch (operator) {
    case "<": for (let i = 0; i < m; i++) out[i] = values[i] < value ? 1 : 0; break;
    case "<=": for (let i = 0; i < m; i++) out[i] = values[i] <= value ? 1 : 0; break;
    case ">": for (let i = 0; i < m; i++) out[i] = values[i] > value ? 1 : 0; break;
    case ">=": for (let i = 0; i < m; i++) out[i] = values[i] >= value ? 1 : 0; break;
    case "==": for (let i = 0; i < m; i++) out[i] = values[i] === value ? 1 : 0; break;
    default: for (let i = 0; i < m; i++) out[i] = values[i] !== value ? 1 : 0;
  }
  return out;
}

// Python's repr of a string, as its error messages quote one.
function pythonRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const escaped = text.replace(/\\/g, "\\\\").replace(/\n/g, "\\n").replace(/\t/g, "\\t")
    .replace(/\r/g, "\\r");
  return quote + (quote === "'" ? escaped.replace(/'/g, "\\'") : escaped) + quote;
}
