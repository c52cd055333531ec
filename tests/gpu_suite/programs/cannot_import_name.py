"""Import a model class that this transformers version does not have."""

from transformers import AutoConfig, Qwen9MoeForCausalLM

print(AutoConfig, Qwen9MoeForCausalLM)
