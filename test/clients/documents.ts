/**
 * The operations both client tests send (Apollo Client's and urql's): the customer screen on the
 * `edges` form, and the mutations whose results update a normalized cache. Each test parses them
 * with its own library's `gql`.
 */
export const SCREEN = /* GraphQL */ `
  query Screen($after: String) {
    me {
      id
      name
      addresses {
        id
        label
        city
      }
      orders(first: 10, after: $after) {
        edges {
          cursor
          node {
            id
            placedAt
            status
            totalCents
          }
        }
        pageInfo {
          hasNextPage
          endCursor
        }
      }
    }
  }
`;

export const PUT_ADDRESS = /* GraphQL */ `
  mutation PutAddress($customerId: ID!, $input: AddressInput!) {
    putAddress(customerId: $customerId, input: $input) {
      id
      label
      city
    }
  }
`;
export const REMOVE_ADDRESS = /* GraphQL */ `
  mutation RemoveAddress($customerId: ID!, $label: String!) {
    removeAddress(customerId: $customerId, label: $label)
  }
`;
export const RENAME = /* GraphQL */ `
  mutation Rename($id: ID!, $name: String!) {
    updateCustomer(id: $id, input: { name: $name }) {
      id
      name
    }
  }
`;

export interface Screen {
  me: {
    id: string;
    name: string;
    addresses: Array<{ id: string; label: string; city: string }>;
    orders: { edges: Array<{ cursor: string; node: { id: string } }>; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  };
}
