/**
 * Decide which dataset a run uses, following the spec: the file given by `--dataset-path`; otherwise the
 * public LoCoMo file, downloaded and cached; and when that is unavailable, the synthetic smoke-test data.
 *
 * An explicit `--dataset-path` never falls back: the user asked for that file, so a missing or malformed
 * file is an error (`DatasetError`) the caller reports, not something to paper over with other data.
 */
import { DatasetError, loadDataset, type Dataset } from './dataset.js';
import { obtainLocomo, type DownloadOptions } from './download.js';
import { generateSyntheticDataset, type SyntheticOptions } from './synthetic.js';

export interface ResolveOptions extends Omit<DownloadOptions, 'harnessDir'> {
  /** `--dataset-path`; when set it is loaded and nothing is downloaded. */
  datasetPath?: string | undefined;
  /** `--harness-dir`; the download cache is `<harnessDir>/datasets/`. */
  harnessDir: string;
  /** Options for the synthetic fallback (defaults are the standard smoke-test set). */
  synthetic?: SyntheticOptions;
}

export interface ResolvedDataset {
  dataset: Dataset;
  /** `file`: --dataset-path; `locomo`: downloaded or cached public file; `synthetic`: fallback. */
  kind: 'file' | 'locomo' | 'synthetic';
  /** Why the run fell back to synthetic data; set only when `kind` is `synthetic`. */
  fallbackReason?: string;
}

/** Throws `DatasetError` only for a bad `--dataset-path`; every other problem becomes a fallback. */
export async function resolveDataset(options: ResolveOptions): Promise<ResolvedDataset> {
  if (options.datasetPath !== undefined) {
    return { dataset: await loadDataset(options.datasetPath), kind: 'file' };
  }
  const { datasetPath: _ignored, synthetic, ...download } = options;
  const result = await obtainLocomo(download);
  if (result.ok) {
    try {
      return { dataset: await loadDataset(result.path), kind: 'locomo' };
    } catch (err) {
      // The checksum matched but the loader rejected it: only possible with an overridden
      // LOCOMO_SHA256/LOCOMO_URL pointing at something else. Still a case for the fallback.
      if (!(err instanceof DatasetError)) throw err;
      return { dataset: generateSyntheticDataset(synthetic), kind: 'synthetic', fallbackReason: err.message };
    }
  }
  return { dataset: generateSyntheticDataset(synthetic), kind: 'synthetic', fallbackReason: result.reason };
}
