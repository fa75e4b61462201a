/**
 * Node ids (src/model/node-id.ts): an address's and a product's id is its table key, so it decodes
 * to exactly the customer and label (or SKU) it was made of, and each node has one id; a customer's
 * or an order's id is its ULID. Anything else is BAD_USER_INPUT, whatever the text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressNodeId, checkLabel, checkSku, decodeNodeId, decodeNodeIds, DomainError, NODES_MAX, productNodeId } from '../../src/model';
import { anyString, keyPartValue, ulid } from './arbitraries';

const label = keyPartValue(40).filter((value) => {
  try {
    return checkLabel(value) === value;
  } catch {
    return false;
  }
});
const sku = keyPartValue(64).filter((value) => {
  try {
    return checkSku(value) === value;
  } catch {
    return false;
  }
});

function refusal(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return error instanceof DomainError ? error.code : String(error);
  }
}

describe('node ids', () => {
  it('an address id names its customer and label, and only that address', () => {
    fc.assert(
      fc.property(ulid, label, label, (customerId, a, b) => {
        const id = addressNodeId({ customerId, label: a });
        expect(decodeNodeId(id)).toEqual({ type: 'Address', customerId, label: a });
        expect(addressNodeId({ customerId, label: b }) === id).toBe(a === b);
      }),
    );
  });

  it('a product id names its SKU', () => {
    fc.assert(
      fc.property(sku, (value) => {
        expect(decodeNodeId(productNodeId({ sku: value }))).toEqual({ type: 'Product', sku: value });
      }),
    );
  });

  it("a customer's or an order's id is its ULID, in either case", () => {
    fc.assert(
      fc.property(ulid, (id) => {
        expect(decodeNodeId(id.toLowerCase())).toEqual({ type: 'Customer|Order', id });
      }),
    );
  });

  it('anything else is BAD_USER_INPUT', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        let decoded: unknown;
        try {
          decoded = decodeNodeId(text, 'id');
        } catch (error) {
          expect(error).toBeInstanceOf(DomainError);
          expect((error as DomainError).code).toBe('BAD_USER_INPUT');
          return;
        }
        // Whatever decoded is exactly an id the server hands out.
        const ref = decoded as ReturnType<typeof decodeNodeId>;
        const again = ref.type === 'Address' ? addressNodeId(ref) : ref.type === 'Product' ? productNodeId(ref) : ref.id;
        expect(again).toBe(ref.type === 'Customer|Order' ? text.toUpperCase() : text);
      }),
    );
    const key = (pk: string, sk: string) => Buffer.from(JSON.stringify([pk, sk])).toString('base64url');
    for (const text of [
      key('EMAIL#a@example.com', 'EMAIL'),
      key('CUSTOMER#01JD0000000000000000000000', 'PROFILE'),
      key('CATALOG', 'PRODUCT#'),
      Buffer.from('[ "CATALOG", "PRODUCT#X" ]').toString('base64url'),
      `${productNodeId({ sku: 'X' })}=`,
    ])
      expect(
        refusal(() => decodeNodeId(text)),
        text,
      ).toBe('BAD_USER_INPUT');
  });

  it(`a nodes list holds at most ${NODES_MAX} ids, and names the one at fault`, () => {
    expect(decodeNodeIds(Array.from({ length: NODES_MAX }, () => productNodeId({ sku: 'X' })))).toHaveLength(NODES_MAX);
    expect(refusal(() => decodeNodeIds(Array.from({ length: NODES_MAX + 1 }, () => productNodeId({ sku: 'X' }))))).toBe('BAD_USER_INPUT');
    let field: string | undefined;
    try {
      decodeNodeIds([productNodeId({ sku: 'X' }), 'nope']);
    } catch (error) {
      field = (error as DomainError).field;
    }
    expect(field).toBe('ids[1]');
  });
});
