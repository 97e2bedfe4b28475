"""Each zoo model's PyTorch module, by its folder's name, built as its
export script builds it (the same seeded weights): what the benchmarks
(bench/peers/zoo.py) run PyTorch eager on."""

import encoders
import gpt2
import gpt_neox
import llama
import mixtral
import moe
import packing
import recommender
import resnet
import segformer
import sparse_moe
import t5
import tiny_llama
import unet
import vit
import wav2vec2

MODULES = {
    "bert": lambda: encoders.Hidden(encoders.model("bert")),
    "roberta": lambda: encoders.Hidden(encoders.model("roberta")),
    "distilbert": lambda: encoders.Hidden(encoders.model("distilbert")),
    "gpt2": lambda: gpt2.Logits(gpt2.model()),
    "gpt2_cache": lambda: gpt2.Step(gpt2.model()),
    "gpt_neox": lambda: gpt_neox.Logits(gpt_neox.model()),
    "llama": lambda: llama.Step(llama.model()),
    "llama_opset23": lambda: llama.Step(llama.model()),  # exported at 23
    "mixtral": lambda: mixtral.Logits(mixtral.model()),
    "mixtral_ts": lambda: mixtral.model("eager").model.layers[0].mlp,
    "tiny_llama": lambda: tiny_llama.Decoder(),
    "t5": lambda: t5.Seq2Seq(t5.model()),
    "moe": lambda: moe.TopTwoMoE(),
    "sparse_moe": lambda: sparse_moe.SparseMoE(),
    "packing": lambda: packing.PackedMlp(),
    "recommender": lambda: recommender.Recommender(),
    "resnet": lambda: resnet.TinyResNet(),
    "wav2vec2": lambda: wav2vec2.Encoder(wav2vec2.model()),
    "vit": lambda: vit.AnyResolution(vit.model()),
    "segformer": lambda: segformer.Features(segformer.model()),
    "unet": lambda: unet.TinyUNet(),
}


def module(name):
    return MODULES[name]().eval()
