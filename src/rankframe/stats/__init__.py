"""Statistics over per-query values: bootstrap, t, permutation and Wilcoxon tests, their
two-sample forms and the corrections of p-values (``inference``)."""
