"""How large a problem may be: limits checked while a problem is read, before anything is computed.

A file within the size limit (1M) can still ask for minutes of work or gigabytes of memory: 5,000
rows of 2-d vectors compared pairwise, a softmax over 520,000 logits, an LSTM over 1,000 steps, a
sinusoidal encoding of width 20,000. Each limit below is far above what a worked example needs and
admits the benchmarks (a 256-token self-attention, a 64-token, d_model 64, 8-head layer); beyond
it, the problem is refused in one line naming the key (docs/interface.md, "Limits").
"""

from __future__ import annotations

MAX_ENTRIES = 100_000  # numbers in all the vectors and matrices a problem gives (a key read twice: once)
MAX_STEPS = 256  # time steps of an rnn, lstm or gru, and of a seq2seq encoder
MAX_DECODER_STEPS = 64  # steps of a seq2seq decoder
MAX_PAIRS = 10_000  # similarity: rows of A × rows of B
MAX_PAIR_ENTRIES = 250_000  # similarity: rows of A × rows of B × the vectors' width
MAX_HEADS = 32  # heads of a multi-head attention (2,000 heads over 2 tokens took 38 s in text)
MAX_SCORES = 65_536  # one attention's scores: queries × keys × heads (a 256-token self-attention)
MAX_ENCODING_WIDTH = 1024  # positional-encoding: d_model (sinusoidal) or d_k (RoPE)
MAX_BLOCKS = 64  # online-softmax: blocks of keys per row (4,000 blocks of one key took half a minute)
MAX_RUNNING = 65_536  # online-softmax: the running outputs kept, rows × blocks × d_v (225 MB of JSON at 4 M)
MAX_JACOBIAN = 65_536  # attention-backward's softmax Jacobians: rows × keys × keys × heads (JSON of 100+ MB)
