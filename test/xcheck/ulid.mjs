// Cross-check of kid's ULID functions (ulid_to_timestamp, uuid_to_ulid,
// ulid_to_uuid) against the npm package ulid, the ULID spec's reference
// implementation.
//   node ulid.mjs check-kid < lines "ulid<TAB>ms<TAB>uuid" made by kid from uuids
//       prints one line per disagreement with decodeTime, isValid,
//       uuidToULID and ulidToUUID
//   node ulid.mjs make N   prints N ULIDs the package made, each at a seed
//       time across the whole 48-bit range (its two ends first), as
//       "ulid<TAB>seed ms<TAB>the package's uuid of it"
import { ulid, decodeTime, isValid, uuidToULID, ulidToUUID, TIME_MAX } from 'ulid';
import { readFileSync } from 'node:fs';

const mode = process.argv[2];
if (mode === 'check-kid') {
    const lines = readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0);
    let bad = 0;
    for (const line of lines) {
        const [text, ms, uuid] = line.split('\t');
        if (!isValid(text) || decodeTime(text) !== Number(ms) || uuidToULID(uuid) !== text ||
            ulidToUUID(text).toLowerCase() !== uuid) {
            console.log(`disagree: ${line}`);
            bad++;
        }
    }
    console.error(`checked ${lines.length} kid ulids, ${bad} disagreements`);
} else if (mode === 'make') {
    const n = Number(process.argv[3]);
    for (let i = 0; i < n; i++) {
        // (Not 0: ulid(0) takes the clock, a seed time of 0 being falsy to it.)
        const seed = i === 0 ? 1 : i === 1 ? TIME_MAX : 1 + Math.floor(Math.random() * TIME_MAX);
        const id = ulid(seed);
        if (decodeTime(id) !== seed) {
            console.error(`reference inconsistent: ${id} ${seed}`);
            process.exit(1);
        }
        console.log(`${id}\t${seed}\t${ulidToUUID(id).toLowerCase()}`);
    }
} else {
    console.error('usage: node ulid.mjs check-kid|make N');
    process.exit(2);
}
