"""Load a model folder through transformers: `config`, `remote-code`, `tokenizer-chat` or `weights`."""

import sys

from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

what, folder = sys.argv[1], sys.argv[2]
print(f"loading {what} from {folder}", flush=True)
if what in ("config", "remote-code"):
    print(AutoConfig.from_pretrained(folder))
elif what == "tokenizer-chat":
    tokenizer = AutoTokenizer.from_pretrained(folder)
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    print(tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
elif what == "weights":
    model = AutoModelForCausalLM.from_pretrained(folder)
    print(model.num_parameters())
