"""A sweep's recommendation reads as a person says a deployment: "1 replica × TP 1 on NVIDIA A100 80GB", not
"1 × 1 × NVIDIA A100"."""

from apps.simulators.modeling.parallel import Parallelism
from apps.simulators.sweeps import layout_words


def test_one_replica_on_one_gpu():
    assert layout_words(1, Parallelism(1, 1, 1, 1)) == "1 replica × TP 1"


def test_replicas_with_more_than_tensor_parallel_say_how_many_gpus_each():
    assert layout_words(3, Parallelism(4, 2, 1, 1)) == "3 replicas × TP 4 × PP 2 (8 GPUs each)"
    assert layout_words(2, Parallelism(8, 1, 1, 1)) == "2 replicas × TP 8"
