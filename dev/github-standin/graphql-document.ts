/**
 * A GraphQL document parser for the stand-in: operations, selection sets, aliases, arguments (variables,
 * strings, block strings, numbers, booleans, null, enums, lists, input objects), inline fragments and named
 * fragments (expanded where spread). The grammar is the GraphQL specification's "Document"
 * (https://spec.graphql.org/October2021/#sec-Document); directives and variable definitions are read and
 * ignored (their defaults excepted).
 */

/** A value as written in the document; `{ var }` is a `$variable` reference, `{ enum }` an enum value. */
export type GqlValue =
  | string
  | number
  | boolean
  | null
  | { var: string }
  | { enum: string }
  | GqlValue[]
  | { object: Record<string, GqlValue> };

/** A field of a selection set: `alias: name(args) { selections }`. */
export interface GqlField {
  kind: "field";
  alias: string;
  name: string;
  args: Record<string, GqlValue>;
  selections: GqlSelection[];
}

/** An inline fragment (`... on Type { }`) or a named fragment spread, already expanded. */
export interface GqlFragment {
  kind: "fragment";
  on: string | undefined;
  selections: GqlSelection[];
}

export type GqlSelection = GqlField | GqlFragment;

/** The operation to run: its type, its variables' defaults, its selections. */
export interface GqlOperation {
  type: "query" | "mutation";
  defaults: Record<string, GqlValue>;
  selections: GqlSelection[];
}

/** A document the stand-in cannot parse; GitHub answers such a query with a `parseError`. */
export class GqlSyntaxError extends Error {}

const TOKEN =
  /\s+|,|#[^\n]*|("""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*")|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|(\.\.\.|[{}()[\]:=!$@|&])|([_A-Za-z][_0-9A-Za-z]*)/y;

type Token =
  { t: "str"; v: string } | { t: "num"; v: number } | { t: "punct"; v: string } | { t: "name"; v: string };

function tokenize(src: string): Token[] {
  const out: Token[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (m === null) throw new GqlSyntaxError(`Parse error on "${src.slice(at, at + 10)}" at offset ${at}`);
    if (m[1] !== undefined)
      out.push({
        t: "str",
        v: m[1].startsWith('"""') ? m[1].slice(3, -3) : (JSON.parse(m[1].replace(/\\\//g, "/")) as string),
      });
    else if (m[2] !== undefined) out.push({ t: "num", v: Number(m[2]) });
    else if (m[3] !== undefined) out.push({ t: "punct", v: m[3] });
    else if (m[4] !== undefined) out.push({ t: "name", v: m[4] });
  }
  return out;
}

class Parser {
  private i = 0;
  readonly fragments = new Map<string, { on: string; selections: GqlSelection[] }>();
  constructor(private readonly toks: Token[]) {}

  peek(): Token | undefined {
    return this.toks[this.i];
  }
  is(v: string): boolean {
    const t = this.peek();
    return t !== undefined && (t.t === "punct" || t.t === "name") && t.v === v;
  }
  take(v?: string): Token {
    const t = this.toks[this.i];
    if (t === undefined) throw new GqlSyntaxError("Parse error: unexpected end of document");
    if (v !== undefined && !((t.t === "punct" || t.t === "name") && t.v === v))
      throw new GqlSyntaxError(`Parse error on "${String(t.v)}": expected "${v}"`);
    this.i += 1;
    return t;
  }
  name(): string {
    const t = this.take();
    if (t.t !== "name") throw new GqlSyntaxError(`Parse error on "${String(t.v)}": expected a name`);
    return t.v;
  }
  done(): boolean {
    return this.i >= this.toks.length;
  }

  value(): GqlValue {
    const t = this.take();
    if (t.t === "str" || t.t === "num") return t.v;
    if (t.t === "name") {
      if (t.v === "true" || t.v === "false") return t.v === "true";
      if (t.v === "null") return null;
      return { enum: t.v };
    }
    if (t.v === "$") return { var: this.name() };
    if (t.v === "[") {
      const list: GqlValue[] = [];
      while (!this.is("]")) list.push(this.value());
      this.take("]");
      return list;
    }
    if (t.v === "{") {
      const object: Record<string, GqlValue> = {};
      while (!this.is("}")) {
        const k = this.name();
        this.take(":");
        object[k] = this.value();
      }
      this.take("}");
      return { object };
    }
    throw new GqlSyntaxError(`Parse error on "${t.v}"`);
  }

  directives(): void {
    while (this.is("@")) {
      this.take("@");
      this.name();
      if (this.is("(")) this.args();
    }
  }

  args(): Record<string, GqlValue> {
    const args: Record<string, GqlValue> = {};
    this.take("(");
    while (!this.is(")")) {
      const k = this.name();
      this.take(":");
      args[k] = this.value();
    }
    this.take(")");
    return args;
  }

  selectionSet(): GqlSelection[] {
    const out: GqlSelection[] = [];
    this.take("{");
    while (!this.is("}")) {
      if (this.is("...")) {
        this.take("...");
        if (this.is("on") || this.is("{") || this.is("@")) {
          const on = this.is("on") ? (this.take("on"), this.name()) : undefined;
          this.directives();
          out.push({ kind: "fragment", on, selections: this.selectionSet() });
        } else {
          const spread = this.name();
          this.directives();
          out.push({ kind: "fragment", on: `...${spread}`, selections: [] });
        }
        continue;
      }
      let alias = this.name();
      let name = alias;
      if (this.is(":")) {
        this.take(":");
        name = this.name();
      }
      const args = this.is("(") ? this.args() : {};
      this.directives();
      const selections = this.is("{") ? this.selectionSet() : [];
      out.push({ kind: "field", alias, name, args, selections });
      alias = "";
    }
    this.take("}");
    return out;
  }

  variableDefinitions(): Record<string, GqlValue> {
    const defaults: Record<string, GqlValue> = {};
    if (!this.is("(")) return defaults;
    this.take("(");
    while (!this.is(")")) {
      this.take("$");
      const v = this.name();
      this.take(":");
      this.typeRef();
      if (this.is("=")) {
        this.take("=");
        defaults[v] = this.value();
      }
      this.directives();
    }
    this.take(")");
    return defaults;
  }

  typeRef(): void {
    if (this.is("[")) {
      this.take("[");
      this.typeRef();
      this.take("]");
    } else this.name();
    if (this.is("!")) this.take("!");
  }
}

/** Replaces each named fragment spread (`on: "...Name"`) by the fragment's type condition and selections. */
function expand(sels: GqlSelection[], fragments: Parser["fragments"], depth = 0): GqlSelection[] {
  if (depth > 20) throw new GqlSyntaxError("Fragment spreads nest too deep (a cycle?)");
  return sels.map((s) => {
    if (s.kind === "field") return { ...s, selections: expand(s.selections, fragments, depth + 1) };
    if (s.on?.startsWith("...")) {
      const f = fragments.get(s.on.slice(3));
      if (f === undefined) throw new GqlSyntaxError(`Fragment ${s.on.slice(3)} was used, but not defined`);
      return { kind: "fragment", on: f.on, selections: expand(f.selections, fragments, depth + 1) };
    }
    return { ...s, selections: expand(s.selections, fragments, depth + 1) };
  });
}

/**
 * Parses `source` and returns its operation (the one named `operationName`, else the only one).
 * @throws GqlSyntaxError for a document that does not parse or names no single operation.
 */
export function parseOperation(source: string, operationName?: string): GqlOperation {
  const p = new Parser(tokenize(source));
  const ops: Array<GqlOperation & { name?: string }> = [];
  while (!p.done()) {
    if (p.is("{")) {
      ops.push({ type: "query", defaults: {}, selections: p.selectionSet() });
      continue;
    }
    const word = p.name();
    if (word === "fragment") {
      const name = p.name();
      p.take("on");
      const on = p.name();
      p.directives();
      p.fragments.set(name, { on, selections: p.selectionSet() });
      continue;
    }
    if (word !== "query" && word !== "mutation")
      throw new GqlSyntaxError(`Parse error on "${word}": expected query, mutation or fragment`);
    const name = p.peek()?.t === "name" ? p.name() : undefined;
    const defaults = p.variableDefinitions();
    p.directives();
    ops.push({ type: word, defaults, selections: p.selectionSet(), ...(name ? { name } : {}) });
  }
  const op = operationName === undefined ? ops[0] : ops.find((o) => o.name === operationName);
  if (op === undefined || (operationName === undefined && ops.length !== 1))
    throw new GqlSyntaxError("A document must name the operation to run when it has several");
  return { type: op.type, defaults: op.defaults, selections: expand(op.selections, p.fragments) };
}

/** The value of `v` with its variables replaced from `vars` (JSON values). */
export function resolveValue(v: GqlValue, vars: Record<string, unknown>): unknown {
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map((x) => resolveValue(x, vars));
  if ("var" in v) return vars[v.var] ?? null;
  if ("enum" in v) return v.enum;
  return Object.fromEntries(Object.entries(v.object).map(([k, x]) => [k, resolveValue(x, vars)]));
}
