/**
 * Shuffle sharding (k8s.io/apiserver pkg/util/shufflesharding): a flow's hash value deals it a hand
 * of `handSize` distinct queues out of `deckSize`, so two flows rarely share their whole hand and
 * one heavy flow cannot fill every queue another flow could use.
 *
 * The hash is consumed as a mixed-radix number: the first card is hash mod deckSize, the second
 * (hash / deckSize) mod (deckSize - 1) among the remaining cards, and so on. Example, deck 4, hand 2,
 * hash 9: remainders 9 mod 4 = 1, then 2 mod 3 = 2; card 1, then the third card left of {0, 2, 3}: 3.
 */
import { createHash } from 'node:crypto';

/** Hash bits a dealer may consume (kube's MaxHashBits). */
export const MAX_HASH_BITS = 60;

/** kube's RequiredEntropyBits: a slightly conservative estimate of the hash bits a deal consumes. */
export const requiredEntropyBits = (deckSize: number, handSize: number): number => Math.ceil(Math.log2(deckSize) * handSize);

export class Dealer {
  constructor(readonly deckSize: number, readonly handSize: number) {
    if (deckSize <= 0 || handSize <= 0) throw new Error(`deckSize ${deckSize} or handSize ${handSize} is not positive`);
    if (handSize > deckSize) throw new Error(`handSize ${handSize} is greater than deckSize ${deckSize}`);
    if (deckSize > 1 << 26) throw new Error(`deckSize ${deckSize} is impractically large`);
    if (requiredEntropyBits(deckSize, handSize) > MAX_HASH_BITS) throw new Error(`required entropy bits of deckSize ${deckSize} and handSize ${handSize} is greater than ${MAX_HASH_BITS}`);
  }

  /** The hand (queue indexes, in dealing order) for a 64-bit hash value. */
  deal(hash: bigint): number[] {
    const remainders: number[] = [];
    for (let i = 0; i < this.handSize; i++) {
      const radix = BigInt(this.deckSize - i);
      remainders.push(Number(hash % radix));
      hash /= radix;
    }
    const hand: number[] = [];
    for (let i = 0; i < this.handSize; i++) {
      let card = remainders[i]!;
      for (let j = i; j > 0; j--) if (card >= remainders[j - 1]!) card++;
      hand.push(card);
    }
    return hand;
  }
}

/**
 * A flow's hash (kube's hashFlowID): the first 8 bytes, little-endian, of
 * sha256(flowSchemaName NUL distinguisher).
 */
export function hashFlowId(flowSchema: string, distinguisher: string): bigint {
  const sum = createHash('sha256').update(flowSchema).update('\0').update(distinguisher).digest();
  return sum.readBigUInt64LE(0);
}
