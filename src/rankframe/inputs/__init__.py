"""Inputs in other shapes made into the long frame: list columns (``lists``), score matrices
(``scores``) and TREC run and qrels files (``trec_files``)."""
