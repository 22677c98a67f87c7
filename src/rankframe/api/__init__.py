"""The public API: the accessor (``RankEval``) every frame kind shares, its signatures, and
``check()``. It holds an adapter (``rankframe.adapters``) and asks it through declared methods;
nothing below imports this layer."""
