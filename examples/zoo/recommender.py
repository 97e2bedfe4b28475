"""A recommender (random seeded weights): bags of item embeddings of
variable length summed per example by index_add (the bag of each item id
given), concatenated with dense features and scored by an MLP; dynamic
batch and dynamic total item count. (nn.EmbeddingBag itself exports as an
ONNX Loop over sequences, which the importer does not take.)"""

import numpy as np
import torch
from torch import nn

import fixture

ITEMS, DIM, DENSE = 300, 16, 4


class Recommender(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.table = nn.Embedding(ITEMS, DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM + DENSE, 32), nn.ReLU(),
                                 nn.Linear(32, 1))

    def forward(self, item_ids, bag_of, dense):
        items = self.table(item_ids)
        bags = torch.zeros(dense.shape[0], DIM).index_add(0, bag_of, items)
        return torch.sigmoid(self.mlp(torch.cat([bags, dense], -1)))


def main():
    args = fixture.arguments(__doc__)
    folder = fixture.out_dir(args, "recommender")
    module = Recommender().eval()
    rng = np.random.default_rng(0)

    def inputs(batch, items):
        bag_of = np.sort(rng.integers(0, batch, items)) if batch else \
            np.zeros(0, np.int64)
        return {"item_ids": rng.integers(0, ITEMS, items, dtype=np.int64),
                "bag_of": bag_of.astype(np.int64),
                "dense": rng.standard_normal((batch, DENSE)).astype(
                    np.float32)}

    dynamic = {"item_ids": {0: "items"}, "bag_of": {0: "items"},
               "dense": {0: "batch"}}
    fixture.export(module, list(inputs(4, 11).values()),
                   f"{folder}/model.onnx", list(dynamic), ["score"], dynamic)
    fixture.record(module, f"{folder}/model.expected",
                   ((f"batch={b},items={n}", inputs(b, n))
                    for b, n in [(1, 1), (3, 10), (8, 40), (2, 0), (5, 3)]),
                   ["score"])


if __name__ == "__main__":
    main()
