"""The one data path: the request, the per-query step, parts of whole queries, the finish
step (means, intervals, comparisons), input validation, time windows, reference and
previous-window comparisons, and what made each result (provenance)."""
