import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

/**
 * The portal's pages, in navigation order: `/portal/t/<tenant>/<slug>` shows `component`. Each page
 * lives in its own folder (`pages/<slug>/index.tsx`, default export) and is loaded on first visit,
 * so a page author replaces a folder and touches nothing shared.
 */
export interface PageEntry {
  slug: string;
  /** The navigation label. */
  label: string;
  component: LazyExoticComponent<ComponentType>;
}

export const pages: readonly PageEntry[] = [
  { slug: 'dashboard', label: 'Dashboard', component: lazy(() => import('./dashboard')) },
  { slug: 'credentials', label: 'API keys', component: lazy(() => import('./credentials')) },
  { slug: 'memories', label: 'Memories', component: lazy(() => import('./memories')) },
  { slug: 'knowledge', label: 'Knowledge', component: lazy(() => import('./knowledge')) },
  { slug: 'audit', label: 'Audit log', component: lazy(() => import('./audit')) },
  { slug: 'members', label: 'Members', component: lazy(() => import('./members')) },
  { slug: 'break-glass', label: 'Break-glass', component: lazy(() => import('./break-glass')) },
  { slug: 'data', label: 'Data', component: lazy(() => import('./data')) },
  { slug: 'settings', label: 'Settings', component: lazy(() => import('./settings')) },
];

export const DEFAULT_PAGE = 'dashboard';
