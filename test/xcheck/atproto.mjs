// Cross-check of kid's atproto_tid against the AT Protocol reference code.
//   node atproto.mjs check-kid  < lines "tid<TAB>unix_us<TAB>clock_id" made by kid
//       prints one line per disagreement with @atproto/common-web / @atproto/syntax
//   node atproto.mjs make N     prints N reference TIDs "tid<TAB>unix_us<TAB>clock_id"
//   node atproto.mjs syntax N   prints N strings near the syntax with the reference's
//       verdicts "string<TAB>isValidTid<TAB>isValidRecordKey"
import { TID } from '@atproto/common-web';
import { isValidTid, isValidRecordKey } from '@atproto/syntax';
import { readFileSync } from 'node:fs';

// A small deterministic generator, so a failure can be replayed.
let seed = 0x2545f491;
function rand(n) {
    seed ^= seed << 13; seed >>>= 0;
    seed ^= seed >>> 17;
    seed ^= seed << 5; seed >>>= 0;
    return seed % n;
}

const mode = process.argv[2];
if (mode === 'check-kid') {
    const lines = readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0);
    let bad = 0;
    for (const line of lines) {
        const [s, us, clock] = line.split('\t');
        const ok = isValidTid(s);
        const t = ok ? TID.fromStr(s) : null;
        if (!ok || t.timestamp() !== Number(us) || t.clockid() !== Number(clock)) {
            console.log(`disagree: ${line} valid=${ok} ref=${t ? t.timestamp() + '/' + t.clockid() : '-'}`);
            bad++;
        }
    }
    console.error(`checked ${lines.length} kid tids, ${bad} disagreements`);
} else if (mode === 'make') {
    const n = Number(process.argv[3]);
    for (let i = 0; i < n; i++) {
        // 2005..2255: the reference's fromTime does not pad, so it cannot make
        // tids whose time needs fewer than 11 base32 digits (before 2005).
        const us = 2 ** 50 + rand(7 * 2 ** 23) * 2 ** 27 + rand(2 ** 27);
        const clock = rand(1024);
        const t = TID.fromTime(us, clock);
        console.log(`${t.toString()}\t${us}\t${clock}`);
    }
    for (let i = 0; i < 100; i++) {
        const t = TID.next();
        console.log(`${t.toString()}\t${t.timestamp()}\t${t.clockid()}`);
    }
} else if (mode === 'syntax') {
    const n = Number(process.argv[3]);
    const pool = '234567abcdefghijklmnopqrstuvwxyzABCXYZ01890.-_:~@/ ';
    for (let i = 0; i < n; i++) {
        let s = TID.fromTime(2 ** 50 + rand(7 * 2 ** 23) * 2 ** 27 + rand(2 ** 27), rand(1024)).toString().split('');
        const edits = rand(4);
        for (let e = 0; e < edits; e++) {
            const what = rand(3);
            const pos = rand(s.length + 1);
            const c = pool[rand(pool.length)];
            if (what === 0 && s.length > 0) s[Math.min(pos, s.length - 1)] = c;
            else if (what === 1) s.splice(pos, 0, c);
            else if (s.length > 0) s.splice(Math.min(pos, s.length - 1), 1);
        }
        if (rand(10) === 0) s = ['.', '.'].slice(0, 1 + rand(2));
        const str = s.join('');
        console.log(`${str}\t${isValidTid(str)}\t${isValidRecordKey(str)}`);
    }
} else {
    console.error('usage: node atproto.mjs check-kid|make N|syntax N');
    process.exit(2);
}
