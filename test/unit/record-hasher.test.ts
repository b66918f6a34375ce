// The worker's record hashing thread: the same hashes as the run process's own hasher, in line order,
// empty lines skipped; a line that is not JSON fails its request alone; the thread runs at a lower CPU
// priority than the process's other threads (Linux: the nice value belongs to the thread).
import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import type { AgentDefinition, ExtractedRecord } from '../../src/engine/index.js';
import { HASHER_NICE_STEP, hashLines } from '../../src/jobs/record-hasher.js';
import { recordHashPlanOf, recordHasher } from '../../src/jobs/record-hashes.js';

const definition: AgentDefinition = {
  startUrl: 'https://a.example/',
  list: { selector: 'li', fields: [{ name: 'sku' }, { name: 'title' }, { name: 'price' }] },
  follow: { selector: 'a', fields: [{ name: 'description' }] },
  key: ['sku'],
  changes: { export: 'changed', trackDeletes: false },
};

const records: ExtractedRecord[] = [
  { sku: 'A1', title: 'Kettle', price: '19.90', description: 'Steel' },
  { sku: '', title: 'No key', price: '1.00', description: null },
  { sku: 'B2', title: 'Toaster — ½ price', price: '24.50', description: 'Two slots' },
];

/** The nice values of this process's threads. */
function threadNiceValues(): number[] {
  return fs.readdirSync('/proc/self/task').map((tid) => {
    const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    // Fields after the command name; the nice value is the 19th field of the line.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('record hashing thread', () => {
  it('gives each line the hashes the run process computes, in order, skipping empty lines', async () => {
    const ndjson = records.map((r) => JSON.stringify(r)).join('\n\n') + '\n';
    const hashed = await hashLines(recordHashPlanOf(definition), ndjson);
    const own = records.map(recordHasher(definition));
    expect(hashed.keys).toEqual(own.map((h) => h.key));
    expect(hashed.values).toEqual(own.map((h) => h.values));
    expect(hashed.lists).toEqual(own.map((h) => h.list));
    // A record without a key value has no key; the list hash differs from the values hash with a follow.
    expect(hashed.keys[1]).toBeNull();
    expect(hashed.lists[0]).not.toBe(hashed.values[0]);
  });

  it('fails a request whose line is not JSON, and answers the next one', async () => {
    const plan = recordHashPlanOf(definition);
    await expect(hashLines(plan, '{"sku": "A1"}\n{not json\n')).rejects.toThrow(/JSON/);
    const next = await hashLines(plan, JSON.stringify(records[0]) + '\n');
    expect(next.keys).toEqual([recordHasher(definition)(records[0]).key]);
  });

  it.runIf(process.platform === 'linux')('runs at a lower CPU priority than the process’s other threads', async () => {
    await hashLines(recordHashPlanOf(definition), JSON.stringify(records[0]) + '\n');
    // This thread has the priority the process was started with, whatever it is (a CI may run it niced).
    const own = os.getPriority();
    const nice = threadNiceValues();
    expect(nice).toContain(Math.min(19, own + HASHER_NICE_STEP));
    expect(nice).toContain(own);
  });
});
