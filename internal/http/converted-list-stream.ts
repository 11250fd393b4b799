/**
 * An unpaged list converted to a Table or a PartialObjectMetadataList (JSON), sent while it is
 * read, as a plain JSON list is (respond.ts sendJsonStream): the rows (items) of each storage
 * batch are converted and written, the next batch read once the socket has taken them. Bytes are
 * exactly those of the whole conversion: both documents end with their row (item) array, so the
 * document of the empty list, cut before its closing `]}`, is the head, and each row is the JSON of
 * the same conversion applied to its batch.
 */
import type { KindDescriptor } from '../registry/rest/strategy.ts';
import type { Conversion } from './negotiation.ts';
import { parseObject } from '../registry/generic/serialize.ts';
import { convertObjects, type TableOptions } from './table.ts';
import { goJsonEscape, sendJsonStream, type Res } from './respond.ts';

/** The conversions whose lists stream (PartialObjectMetadata of a list is an error, answered whole). */
export const streamsConverted = (convert: Conversion): boolean => convert.as === 'Table' || convert.as === 'PartialObjectMetadataList';

export async function sendConvertedListStream(res: Res, kind: KindDescriptor, convert: Conversion, table: TableOptions, listMeta: Record<string, unknown>, batches: AsyncIterable<Buffer[]>, close: () => Promise<void>): Promise<void> {
  const rows = (objects: Buffer[]): unknown[] => {
    const doc = convertObjects(kind, convert, objects.map(parseObject), listMeta, table) as { rows?: unknown[]; items?: unknown[] };
    return (convert.as === 'Table' ? doc.rows : doc.items) ?? [];
  };
  const empty = JSON.stringify(convertObjects(kind, convert, [], listMeta, table));
  if (!empty.endsWith('[]}')) {
    await close();
    throw new Error(`${convert.as} does not end with its rows`);
  }
  async function* chunks(): AsyncGenerator<Buffer> {
    let first = true;
    for await (const batch of batches) {
      const json = rows(batch).map((r) => JSON.stringify(r)).join(',');
      if (!json) continue;
      yield goJsonEscape(Buffer.from(first ? json : `,${json}`));
      first = false;
    }
  }
  return sendJsonStream(res, goJsonEscape(Buffer.from(empty.slice(0, -2))), chunks(), TAIL, close);
}
const TAIL = Buffer.from(']}\n');
