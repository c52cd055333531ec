"""Build a tiktoken encoding from a BPE file in which two tokens share one rank (a corrupt tokenizer file)."""

import tiktoken

ranks = {b"a": 0, b"b": 1, b"ab": 2, b"c": 2}  # "ab" and "c" both have rank 2
print(f"loading tiktoken BPE ranks: {len(ranks)} entries", flush=True)
encoding = tiktoken.Encoding("toy-bpe", pat_str=r"\S+|\s+", mergeable_ranks=ranks, special_tokens={})
print(encoding.encode("abc"))
