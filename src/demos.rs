//! Built-in demo scenes reproducing the paper's Table 1.
