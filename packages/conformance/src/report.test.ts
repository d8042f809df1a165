import { describe, expect, it } from 'vitest';
import { curlOf, formatJUnit } from './report.js';

describe('report', () => {
  it('writes a curl line that replays bytes that are not UTF-8 through printf', () => {
    const curl = curlOf({
      method: 'POST',
      url: 'http://127.0.0.1:1/v1/pets',
      headers: { authorization: 'Bearer $API_KEY', 'content-type': 'application/json' },
      body: '{"name":"\\xff"}',
    });
    expect(curl).toBe(
      `printf '{"name":"\\xff"}' | curl -i -X POST 'http://127.0.0.1:1/v1/pets' -H 'authorization: Bearer '"$API_KEY"'' -H 'content-type: application/json' --data-binary @-`,
    );
  });

  it('keeps JUnit XML well-formed whatever a response contained', () => {
    const xml = formatJUnit({
      profile: 'reference',
      skipped: 0,
      baseUrl: 'http://x/v1',
      seed: 1,
      numRuns: 1,
      passed: 0,
      failed: 1,
      durationMs: 5,
      results: [
        { id: 'a.b', description: 'd', ok: false, durationMs: 5, reason: 'bad <\u0000\ud800> & "q"' },
      ],
    });
    expect(xml).toContain('message="bad &lt;\ufffd\ufffd&gt; &amp; &quot;q&quot;"');
  });
});
