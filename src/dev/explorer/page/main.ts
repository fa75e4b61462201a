/// <reference lib="dom" />
/**
 * The explorer page: GraphiQL (from npm, bundled by src/dev/explorer/build.ts) with a bearer-token
 * field, a "Table" view next to the result that draws what the operation read or wrote (table.ts),
 * and a link to Apollo Sandbox for those online. Written with `createElement` (no JSX), so the
 * project's TypeScript settings check it as they are.
 *
 * Every operation is a `POST` with `content-type: application/json` (Apollo's CSRF prevention lets
 * it through) and `x-explain: 1`, so the response carries `extensions.dynamodb`, the plan the
 * Table view draws. The token typed in the field is sent as `Authorization: Bearer <token>`; a
 * header of the same name in GraphiQL's Headers editor wins over it.
 */
import { createElement as h, StrictMode, useCallback, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL, type GraphiQLProps } from 'graphiql';
import type { Explained, Plan } from './plan';
import { TableView } from './table';
import { Separator, useTableWidth } from './split';

/** The customer screen of the README: one DynamoDB Query. */
const CUSTOMER_SCREEN = `# The customer screen: profile, addresses and newest orders in ONE DynamoDB Query.
# Paste a token above (npm start prints Ana's), run it, then open the Table view.
query CustomerScreen {
  me {
    id
    name
    addresses {
      label
      city
    }
    orders(first: 5) {
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

const TOKEN_KEY = 'explorer:token';

type Fetcher = GraphiQLProps['fetcher'];

/** The GraphQL endpoint's fetcher; tells `onExplained` of every operation but introspection. */
function makeFetcher(token: () => string, onExplained: (explained: Omit<Explained, 'seq'>) => void): Fetcher {
  return async (params, options) => {
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/graphql-response+json, application/json',
      'x-explain': '1',
    });
    const typed = token()
      .trim()
      .replace(/^Bearer\s+/i, '');
    if (typed) headers.set('authorization', `Bearer ${typed}`);
    for (const [name, value] of Object.entries(options?.headers ?? {})) headers.set(name, String(value));
    const response = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify(params) });
    const body = (await response.json()) as { extensions?: { dynamodb?: Plan } };
    if (params.operationName !== 'IntrospectionQuery') {
      onExplained({
        operationName: params.operationName ?? null,
        plan: body.extensions?.dynamodb,
        authorization: headers.get('authorization'),
      });
    }
    return body as Awaited<ReturnType<Fetcher>>;
  };
}

function Explorer() {
  const [token, setToken] = useState(() => sessionStorage.getItem(TOKEN_KEY) ?? '');
  const [tableOpen, setTableOpen] = useState(false);
  const [explained, setExplained] = useState<Explained | undefined>(undefined);
  const tokenRef = useRef(token); // read by the fetcher at call time, so the fetcher stays one function
  tokenRef.current = token;

  const onExplained = useCallback(
    (next: Omit<Explained, 'seq'>) => setExplained((previous) => ({ ...next, seq: (previous?.seq ?? 0) + 1 })),
    [],
  );
  const fetcher = useMemo(() => makeFetcher(() => tokenRef.current, onExplained), [tokenRef, onExplained]);
  const endpoint = `${location.origin}/graphql`;
  const main = useRef<HTMLElement | null>(null);
  const table = useTableWidth(main);

  return h(
    'div',
    { className: 'explorer' },
    h(
      'header',
      { className: 'explorer-bar' },
      h('strong', { className: 'explorer-title' }, 'single-table-graphql'),
      h(
        'label',
        { className: 'explorer-token' },
        'Bearer token ',
        h('input', {
          type: 'password',
          name: 'token',
          value: token,
          placeholder: 'paste a token (npm start prints two)',
          autoComplete: 'off',
          spellCheck: false,
          onChange: (event: { target: { value: string } }) => {
            setToken(event.target.value);
            sessionStorage.setItem(TOKEN_KEY, event.target.value);
          },
        }),
      ),
      h(
        'button',
        {
          type: 'button',
          className: `explorer-toggle${tableOpen ? ' active' : ''}`,
          'aria-pressed': tableOpen,
          onClick: () => setTableOpen(!tableOpen),
        },
        'Table',
      ),
      h(
        'a',
        {
          className: 'explorer-sandbox',
          href: `https://studio.apollographql.com/sandbox/explorer?endpoint=${encodeURIComponent(endpoint)}`,
          target: '_blank',
          rel: 'noopener noreferrer',
          title: 'Apollo Sandbox needs internet access',
        },
        'Open in Apollo Sandbox ↗',
      ),
    ),
    h(
      'main',
      { className: 'explorer-main', ref: main },
      h(
        'div',
        { className: 'explorer-graphiql' },
        h(GraphiQL, {
          fetcher,
          defaultQuery: CUSTOMER_SCREEN,
          forcedTheme: 'light',
          isHeadersEditorEnabled: true,
          shouldPersistHeaders: false,
        }),
      ),
      tableOpen ? h(Separator, { table, controls: 'explorer-table' }) : null,
      tableOpen
        ? h(
            'div',
            { className: 'explorer-table', id: 'explorer-table', style: { width: table.width } },
            h(TableView, { explained, width: table.width }),
          )
        : null,
    ),
  );
}

const root = document.getElementById('explorer');
if (root) createRoot(root).render(h(StrictMode, null, h(Explorer)));
