"""Load a tokenizer and config by repo id through transformers (the cache is empty)."""

import sys

from transformers import AutoConfig, AutoTokenizer

repo = sys.argv[1]
config = AutoConfig.from_pretrained(repo)
tokenizer = AutoTokenizer.from_pretrained(repo)
print(config.model_type, tokenizer.vocab_size)
