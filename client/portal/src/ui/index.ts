/** The portal's component kit: page authors import from here. */
export { Button } from './Button';
export { Checkbox } from './Checkbox';
export { ConfirmDialog } from './ConfirmDialog';
export { CopyButton } from './CopyButton';
export { DataTable, type Column, type Pagination } from './DataTable';
export { Dialog } from './Dialog';
export { EmptyState } from './EmptyState';
export { ErrorBanner } from './ErrorBanner';
export { PageHeader } from './PageHeader';
export { PagePlaceholder } from './PagePlaceholder';
export { Select, type SelectOption } from './Select';
export { Loading, Spinner } from './Spinner';
export { StepUpCancelled, StepUpDialog, stepUpContext, useStepUp } from './StepUp';
export { TextField } from './TextField';
export { useUrlPatch, useUrlState } from './useUrlState';
export { usePermissions, type Permissions } from './usePermissions';
