/** The Go-template subset renderer the chart tests rely on: its semantics, table by table. */
import { describe, expect, it } from 'vitest';
import { mergeValues, renderTemplate, TemplateError } from './render.js';

const data = {
  Values: {
    name: 'api',
    port: 9464,
    empty: '',
    zero: 0,
    list: ['a', 'b'],
    map: { zeta: 1, alpha: 2 },
    nested: { deep: { value: 'x' } },
    none: null,
    flag: false,
  },
};

describe('renderTemplate', () => {
  it.each([
    ['plain fields', '{{ .Values.name }}:{{ .Values.port }}', 'api:9464'],
    ['a missing key prints nothing', '[{{ .Values.missing }}]', '[]'],
    ['trim markers eat whitespace and newlines', 'a  \n  {{- .Values.name -}}  \n  b', 'aapib'],
    [
      'if / else if / else',
      '{{ if .Values.empty }}1{{ else if .Values.zero }}2{{ else if .Values.list }}3{{ else }}4{{ end }}',
      '3',
    ],
    [
      "emptiness is Go's",
      '{{ if or .Values.empty .Values.zero .Values.none .Values.flag (dict) }}t{{ else }}f{{ end }}',
      null,
    ],
    ['range over a list, index and value', '{{ range $i, $v := .Values.list }}{{ $i }}={{ $v }};{{ end }}', '0=a;1=b;'],
    [
      'range over a map is in key order',
      '{{ range $k, $v := .Values.map }}{{ $k }}={{ $v }};{{ end }}',
      'alpha=2;zeta=1;',
    ],
    ['range over nothing takes else', '{{ range .Values.none }}x{{ else }}none{{ end }}', 'none'],
    [
      'with rebinds dot, else when empty',
      '{{ with .Values.nested.deep }}{{ .value }}{{ end }}{{ with .Values.empty }}x{{ else }}-{{ end }}',
      'x-',
    ],
    ['$ is the root inside with', '{{ with .Values.nested }}{{ $.Values.name }}{{ end }}', 'api'],
    ['variables and parentheses', '{{ $n := printf "%s-%d" .Values.name .Values.port }}{{ $n | quote }}', '"api-9464"'],
    [
      'default, trunc, trimSuffix',
      '{{ default "d" .Values.empty }}{{ "abcdef-" | trunc 6 | trimSuffix "-" }}',
      'dabcdef',
    ],
    [
      'and/or return an operand',
      '{{ and .Values.name .Values.port }}|{{ or .Values.empty "fallback" }}',
      '9464|fallback',
    ],
    [
      'eq with several candidates, ne, not',
      '{{ eq .Values.name "x" "api" }} {{ ne .Values.port 1 }} {{ not .Values.flag }}',
      'true true true',
    ],
    ['quote skips nil', '[{{ quote .Values.none }}]', '[]'],
    ['toYaml sorts keys and nindent indents', 'm:{{ toYaml .Values.map | nindent 2 }}', 'm:\n  alpha: 2\n  zeta: 1'],
    ['toYaml does not indent lists under keys', '{{ toYaml .Values }}', null],
    ['comments render nothing', 'a{{/* note */}}b{{- /* trimmed */ -}} c', 'abc'],
  ])('%s', (_name, template, want) => {
    if (template.includes('(dict)')) {
      // `dict` is not in the subset: using it is an error, not an empty string.
      expect(() => renderTemplate(template, data)).toThrow(/unsupported function or keyword "dict"/);
      return;
    }
    const out = renderTemplate(template, data);
    if (want !== null) expect(out).toBe(want);
    else expect(out).toContain('list:\n- a\n- b');
  });

  it('include renders a define with the dot it is given', () => {
    const partials = '{{- define "greet" -}}hello {{ .name }}{{- end -}}';
    expect(renderTemplate('[{{ include "greet" .Values | quote }}]', data, partials)).toBe('["hello api"]');
  });
});

describe('renderTemplate errors', () => {
  it.each([
    ['a field of nil', '{{ .Values.none.x }}', /nil pointer evaluating \.Values\.none\.x/],
    ['required', '{{ required "name it" .Values.empty }}', /execution error: name it/],
    ['fail', '{{ fail "stop here" }}', /execution error: stop here/],
    ['an unknown function', '{{ .Values.name | upper }}', /unsupported function or keyword "upper"/],
    ['an unknown template', '{{ include "nope" . }}', /include of undefined template "nope"/],
    ['printing a map', '{{ .Values.map }}', /use toYaml/],
    ['an unclosed if', '{{ if .Values.name }}x', /if without end/],
    ['a stray end', 'x{{ end }}', /unexpected \{\{ end \}\}/],
  ])('%s is an error with a location', (_name, template, message) => {
    expect(() => renderTemplate(template, data)).toThrow(message);
    expect(() => renderTemplate(template, data)).toThrow(TemplateError);
  });
});

describe('mergeValues', () => {
  it('merges maps, replaces lists and scalars, and null deletes', () => {
    expect(mergeValues({ a: { b: 1, c: [1, 2] }, d: 1, e: 1 }, { a: { c: [3] }, d: null, f: 2 })).toEqual({
      a: { b: 1, c: [3] },
      e: 1,
      f: 2,
    });
  });
});
