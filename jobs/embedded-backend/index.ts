export { EmbeddedAgendaBackend } from './backend.js';
export { EmbeddedJobRepository } from './repository.js';
export { UnsupportedFilterError } from './filters.js';
