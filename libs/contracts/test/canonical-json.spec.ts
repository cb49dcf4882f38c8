import { expect } from 'chai';
import { CanonicalJsonError, canonicalJson } from '../src/canonical-json';

describe('canonicalJson', () => {
  it('sorts keys at every depth, indents by two spaces and ends with a newline', () => {
    const text = canonicalJson({ b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } });
    expect(text).to.equal(
      '{\n  "a": {\n    "c": "x",\n    "d": [\n      3,\n      {\n        "y": null,\n        "z": true\n      }\n    ]\n  },\n  "b": 1\n}\n',
    );
  });

  it('orders integer-like keys as strings, unlike JavaScript property order', () => {
    expect(canonicalJson({ '9': 'a', '10': 'b', x: 'c' })).to.equal(
      '{\n  "10": "b",\n  "9": "a",\n  "x": "c"\n}\n',
    );
  });

  it('is independent of insertion order', () => {
    expect(canonicalJson({ a: 1, b: 2 })).to.equal(canonicalJson({ b: 2, a: 1 }));
  });

  it('matches JSON.stringify for empty containers, scalars and escapes', () => {
    expect(canonicalJson({ o: {}, a: [] })).to.equal('{\n  "a": [],\n  "o": {}\n}\n');
    expect(canonicalJson('line\n"q"\u2028')).to.equal(`${JSON.stringify('line\n"q"\u2028')}\n`);
    expect(canonicalJson(-0)).to.equal('0\n');
    expect(canonicalJson(1e21)).to.equal('1e+21\n');
    expect(canonicalJson(null)).to.equal('null\n');
  });

  it('round-trips through JSON.parse', () => {
    const value = { list: [1, 'two', false, null, { nested: 'ü' }], n: 0.1 };
    expect(JSON.parse(canonicalJson(value))).to.deep.equal(value);
  });

  const rejected: [string, unknown][] = [
    ['undefined at the root', undefined],
    ['an undefined property', { a: undefined }],
    ['an undefined array element', [1, undefined]],
    ['NaN', { n: Number.NaN }],
    ['Infinity', [Number.POSITIVE_INFINITY]],
    ['a function', { f: () => 1 }],
    ['a symbol', { s: Symbol('s') }],
    ['a bigint', { b: BigInt(1) }],
    ['a Date', { d: new Date(0) }],
    ['a Map', { m: new Map() }],
    ['a sparse array hole', { a: [1, , 3] }], // eslint-disable-line no-sparse-arrays
  ];
  for (const [label, value] of rejected) {
    it(`rejects ${label}`, () => {
      expect(() => canonicalJson(value)).to.throw(CanonicalJsonError);
    });
  }

  it('names the path of the offending value', () => {
    expect(() => canonicalJson({ outer: { list: [0, Number.NaN] } })).to.throw(/outer\.list\[1\]/);
    expect(() => canonicalJson([{ a: [1, { b: undefined }] }])).to.throw(
      'canonicalJson: undefined is not JSON at [0].a[1].b',
    );
    expect(() => canonicalJson({ x: new Date(0) })).to.throw(
      'canonicalJson: Date is not a plain object at x',
    );
    expect(() => canonicalJson(Number.NaN)).to.throw('canonicalJson: non-finite number NaN at (root)');
  });

  it('rejects circular structures instead of overflowing the stack', () => {
    const loop: Record<string, unknown> = {};
    loop['self'] = loop;
    expect(() => canonicalJson(loop)).to.throw(CanonicalJsonError, /circular/);
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { k: 1 };
    expect(canonicalJson({ a: shared, b: shared })).to.equal(
      '{\n  "a": {\n    "k": 1\n  },\n  "b": {\n    "k": 1\n  }\n}\n',
    );
  });
});
