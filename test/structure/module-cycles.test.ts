import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

/**
 * The modules of src/ (its top-level folders) import each other without a cycle, so each can be read, tested and
 * changed from the bottom up (ARCHITECTURE.md). A new cycle fails here with the files that close it. Type-only
 * imports are erased at run time, yet a type-only cycle is a circle all the same: none is allowed either.
 */
const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) sourceFiles(p, out);
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const moduleOf = (file: string) => path.relative(SRC, file).split(path.sep)[0] ?? '';

/** module → imported module → the importing files, for value imports and for all imports. */
function graph(): { value: Map<string, Map<string, string[]>>; all: Map<string, Map<string, string[]>> } {
  const value = new Map<string, Map<string, string[]>>();
  const all = new Map<string, Map<string, string[]>>();
  const add = (g: typeof value, a: string, b: string, f: string) => {
    const m = g.get(a) ?? new Map<string, string[]>();
    g.set(a, m);
    m.set(b, [...(m.get(b) ?? []), path.relative(SRC, f)]);
  };
  for (const f of sourceFiles(SRC)) {
    const text = readFileSync(f, 'utf8');
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.{1,2}\/[^']+)'/gm)) {
      const target = path.resolve(path.dirname(f), m[2] ?? '');
      if (!target.startsWith(SRC)) continue;
      const a = moduleOf(f);
      const b = moduleOf(target);
      if (a === b) continue;
      const typeOnly = Boolean(m[1]) || /^\s*import\s*\{\s*(type\s+[\w$]+\s*,?\s*)+\}/.test(m[0]);
      add(all, a, b, f);
      if (!typeOnly) add(value, a, b, f);
    }
  }
  return { value, all };
}

/** Every cycle through the module graph, each as its path of modules (a → … → a), found by depth-first search. */
function cycles(g: Map<string, Map<string, string[]>>): string[][] {
  const found = new Map<string, string[]>();
  const walk = (start: string, at: string, trail: string[]) => {
    for (const next of g.get(at)?.keys() ?? []) {
      if (next === start) {
        const loop = [...trail, start];
        const key = [...loop.slice(0, -1)].sort().join(',');
        if (!found.has(key)) found.set(key, loop);
      } else if (!trail.includes(next) && next > start) walk(start, next, [...trail, next]);
    }
  };
  for (const m of g.keys()) walk(m, m, [m]);
  return [...found.values()];
}

describe('module structure', () => {
  const { value, all } = graph();
  const describeCycle = (g: typeof value, loop: string[]) =>
    loop
      .slice(0, -1)
      .map((a, i) => `${a} -> ${loop[i + 1]} (${(g.get(a)?.get(loop[i + 1] ?? '') ?? []).slice(0, 2).join(', ')})`)
      .join('; ');

  it('no module imports itself back at run time (no value-import cycle between src/ modules)', () => {
    const found = cycles(value);
    assert.deepEqual(found.map((c) => describeCycle(value, c)), []);
  });

  it('no type-only cycle between modules either (mcp names its own McpDeps instead of the http AppDeps)', () => {
    const found = cycles(all);
    assert.deepEqual(found.map((c) => describeCycle(all, c)), []);
  });

  it('connectors never import sync (the sync engine drives connectors, not the reverse)', () => {
    assert.deepEqual(all.get('connectors')?.get('sync') ?? [], []);
  });

  it('a kind folder imports only the kit (and its vendor SDK)', () => {
    const bad: string[] = [];
    for (const f of sourceFiles(path.join(SRC, 'connectors'))) {
      const rel = path.relative(path.join(SRC, 'connectors'), f).split(path.sep);
      if (rel.length < 2 || ['kit', 'actions', 'oauth'].includes(rel[0] ?? '')) continue;
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
        const target = path.relative(path.join(SRC, 'connectors'), path.resolve(path.dirname(f), m[1] ?? ''));
        if (target.split(path.sep)[0] !== rel[0] && !target.startsWith(`kit${path.sep}`)) bad.push(`${path.relative(SRC, f)} imports ${m[1]}`);
      }
    }
    assert.deepEqual(bad, []);
  });
});

/** File-level import cycles inside one module folder: value imports only, or every import with `withTypes`. */
function fileCycles(root: string, withTypes: boolean): string[] {
  const edges = new Map<string, string[]>();
  for (const f of sourceFiles(root)) {
    const text = readFileSync(f, 'utf8');
    const targets: string[] = [];
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?'(\.{1,2}\/[^']+)'/gm)) {
      const typeOnly = Boolean(m[1]) || /^\s*import\s*\{\s*(type\s+[\w$]+\s*,?\s*)+\}/.test(m[0]);
      const target = path.resolve(path.dirname(f), m[2] ?? '');
      if ((withTypes || !typeOnly) && target.startsWith(root)) targets.push(target);
    }
    edges.set(f, targets);
  }
  const state = new Map<string, 'open' | 'done'>();
  const loops: string[] = [];
  const visit = (f: string, trail: string[]) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      loops.push([...trail.slice(trail.indexOf(f)), f].map((x) => path.relative(root, x)).join(' -> '));
      return;
    }
    state.set(f, 'open');
    for (const t of edges.get(f) ?? []) visit(t, [...trail, f]);
    state.set(f, 'done');
  };
  for (const f of edges.keys()) visit(f, []);
  return loops;
}

describe('connectors module', () => {
  it('has no file-level value-import cycle (a kind, the kit and the catalogue load in one order)', () => {
    assert.deepEqual(fileCycles(path.join(SRC, 'connectors'), false), []);
  });
});

describe('federation module', () => {
  it('has no file-level import cycle, types included (the stages take their dependency types from deps.ts)', () => {
    assert.deepEqual(fileCycles(path.join(SRC, 'federation'), true), []);
  });
});
