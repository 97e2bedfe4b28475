"""Encoders from transformers (random seeded weights, small configs): BERT,
RoBERTa and DistilBERT, each exported with dynamic batch and sequence and
an attention mask with padding, the last hidden state as the output."""

import numpy as np
import torch
import transformers

import fixture

CONFIGS = {
    "bert": (transformers.BertConfig, transformers.BertModel),
    "roberta": (transformers.RobertaConfig, transformers.RobertaModel),
    "distilbert": (transformers.DistilBertConfig, transformers.DistilBertModel),
}
VOCAB = 120


def model(name):
    torch.manual_seed(0)
    config_class, model_class = CONFIGS[name]
    if name == "distilbert":
        config = config_class(vocab_size=VOCAB, dim=64, n_layers=2, n_heads=4,
                              hidden_dim=128, max_position_embeddings=128)
    else:
        config = config_class(vocab_size=VOCAB, hidden_size=64,
                              num_hidden_layers=2, num_attention_heads=4,
                              intermediate_size=128,
                              max_position_embeddings=130)
    return model_class(config).eval()


class Hidden(torch.nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, input_ids, attention_mask):
        return self.encoder(input_ids=input_ids,
                            attention_mask=attention_mask).last_hidden_state


def main():
    args = fixture.arguments(__doc__)
    rng = np.random.default_rng(0)

    def inputs(b, s):
        ids = rng.integers(3, VOCAB, (b, s), dtype=np.int64)
        mask = np.ones((b, s), dtype=np.int64)
        for row in range(1, b):  # later rows padded at the end
            mask[row, s - row:] = 0
        return {"input_ids": ids, "attention_mask": mask}

    for name in CONFIGS:
        folder = fixture.out_dir(args, name)
        module = Hidden(model(name))
        dynamic = {"input_ids": {0: "batch", 1: "seq"},
                   "attention_mask": {0: "batch", 1: "seq"}}
        fixture.export(module, list(inputs(2, 8).values()),
                       f"{folder}/model.onnx",
                       ["input_ids", "attention_mask"], ["hidden"], dynamic)
        fixture.record(module, f"{folder}/model.expected",
                       ((f"batch={b},seq={s}", inputs(b, s))
                        for b, s in [(1, 1), (2, 5), (3, 17), (1, 40)]),
                       ["hidden"])


if __name__ == "__main__":
    main()
