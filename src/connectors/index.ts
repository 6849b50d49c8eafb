export { type ConnectorListItem, listConnectors } from './store.ts';
