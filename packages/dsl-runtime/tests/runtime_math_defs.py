"""Kernels with scalar math (test_runtime_scalar_math.py): one per dtype, same body."""


import dsl_parser.language as pl

N = pl.dynamic("N")


def _make(dtype: object) -> tuple[object, object]:
    @pl.kernel
    def k(x: pl.Tensor[[N], dtype], y: pl.Tensor[[N], dtype]):  # type: ignore[valid-type]
        i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
        if i < x.shape[0]:
            v = x[i]
            a = pl.abs(v)
            y[i] = pl.exp(v) + pl.sqrt(a) + pl.tanh(v) + pl.log(a + 1.0) + pl.rsqrt(v * v + 1.0)

    def host(x: pl.Tensor[[N], dtype], y: pl.Tensor[[N], dtype]):  # type: ignore[valid-type]
        k(x, y).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))

    return k, host


K32, HOST32 = _make(pl.FP32)
K64, HOST64 = _make(pl.FP64)
K16, HOST16 = _make(pl.FP16)
KBF, HOSTBF = _make(pl.BF16)


@pl.kernel
def iabs(x: pl.Tensor[[N], pl.INT32], u: pl.Tensor[[N], pl.UINT8], y: pl.Tensor[[N], pl.INT32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < x.shape[0]:
        y[i] = pl.abs(x[i]) + pl.cast(pl.abs(u[i]), pl.INT32)


def host_iabs(x: pl.Tensor[[N], pl.INT32], u: pl.Tensor[[N], pl.UINT8],
              y: pl.Tensor[[N], pl.INT32]):
    iabs(x, u, y).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))


def _make_more(dtype: object) -> object:
    @pl.kernel
    def k(x: pl.Tensor[[N], dtype], y: pl.Tensor[[N], dtype]):  # type: ignore[valid-type]
        i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
        if i < x.shape[0]:
            v = x[i]
            w = pl.fma(pl.sin(v), pl.cos(v), pl.floor(v) + pl.ceil(v))
            y[i] = pl.select(v > 0.0, w, -w)

    def host(x: pl.Tensor[[N], dtype], y: pl.Tensor[[N], dtype]):  # type: ignore[valid-type]
        k(x, y).launch(grid=(pl.ceil_div(x.shape[0], 32),), block=(32,))

    return host


MORE32, MORE64 = _make_more(pl.FP32), _make_more(pl.FP64)


@pl.kernel
def fma_k(a: pl.Tensor[[N], pl.FP32], b: pl.Tensor[[N], pl.FP32], c: pl.Tensor[[N], pl.FP32],
          y: pl.Tensor[[N], pl.FP32]):
    i = pl.block_id(0) * pl.block_dim(0) + pl.thread_id(0)
    if i < a.shape[0]:
        y[i] = pl.fma(a[i], b[i], c[i])


def host_fma(a: pl.Tensor[[N], pl.FP32], b: pl.Tensor[[N], pl.FP32],
             c: pl.Tensor[[N], pl.FP32], y: pl.Tensor[[N], pl.FP32]):
    fma_k(a, b, c, y).launch(grid=(pl.ceil_div(a.shape[0], 64),), block=(64,))
