// Cross-check of kid's koid against the npm packages koid and flake-idgen.
//   node koid.mjs check-kid < lines "hex<TAB>ms<TAB>datacenter<TAB>worker<TAB>counter" made by kid
//       prints one line per disagreement with koid's retrieveFromId
//   node koid.mjs make N   prints ids made by koid and flake-idgen with random
//       datacenter/worker, as "hex<TAB>ms<TAB>datacenter<TAB>worker<TAB>counter"
//       where the fields are what the library was configured with and decodes.
import { KoidFactory, retrieveFromId } from 'koid';
import FlakeId from 'flake-idgen';
import { readFileSync } from 'node:fs';

const mode = process.argv[2];
if (mode === 'check-kid') {
    const lines = readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0);
    let bad = 0, truncated = 0;
    for (const line of lines) {
        const [hex, ms, dc, worker, counter] = line.split('\t');
        const r = retrieveFromId(Buffer.from(hex, 'hex'));
        // koid 18.0.1's retrieveFromId computes the counter as
        // `(p6 << 8) + p7 & 0x1F`, i.e. only its low 5 bits (a precedence
        // slip in the library); compare those, and the full counter through
        // the id's own last 12 bits.
        const full = Number(BigInt('0x' + hex) & 0xfffn);
        if (r.sequence !== (Number(counter) & 0x1f)) bad++;
        else if (r.sequence !== Number(counter)) truncated++;
        if (r.timestamp !== Number(ms) || r.dataCenter !== Number(dc) || r.worker !== Number(worker) ||
            full !== Number(counter) || r.hex !== hex) {
            console.log(`disagree: ${line} ref=${JSON.stringify(r)}`);
            bad++;
        }
    }
    console.error(`checked ${lines.length} kid koids, ${bad} disagreements ` +
        `(${truncated} counters >= 32 that koid's retrieveFromId reads as their low 5 bits)`);
} else if (mode === 'make') {
    const n = Number(process.argv[3]);
    for (let i = 0; i < n; i++) {
        const dataCenter = i % 32, worker = (i * 7) % 32;
        const k = KoidFactory({ dataCenter, worker });
        const before = Date.now();
        const buf = i % 2 === 0 ? k.next : new FlakeId({ datacenter: dataCenter, worker }).next();
        const after = Date.now();
        const r = retrieveFromId(buf);
        if (r.dataCenter !== dataCenter || r.worker !== worker || r.timestamp < before || r.timestamp > after) {
            console.error(`reference inconsistent: ${JSON.stringify(r)}`);
            process.exit(1);
        }
        console.log(`${buf.toString('hex')}\t${r.timestamp}\t${dataCenter}\t${worker}\t${r.sequence}`);
    }
} else {
    console.error('usage: node koid.mjs check-kid|make N');
    process.exit(2);
}
