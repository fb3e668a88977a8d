"""The candidate filters, in the order they run (the modules' numbers).

A candidate sentence -- a model's reply or a model-free edit
(`rewrite/model_free.py`) -- is accepted only if every filter passes it;
the first that rejects names the reason (`reasons.py`), counted in the pass
record (`passes[].rejected`):

1. `f1_reply.py`: the reply's form (JSON, length, echo of the prompt,
   similarity, repetition, added runs, no change, new names or numbers, new
   placeholders) -- every task;
2. `f2_facts.py`: numbers, ordinals, negations and legal references kept;
3. `f3_polarity.py`: no word turned into its opposite;
4. `f4_kept_words.py`: in the words form, every word not named kept;
5. `f5_grounded.py`: every content word grounded in the input;
6. `f6_banned.py`: no flagged phrase or linking N-gram of the document;
7. `f7_linkage.py`: the index finds nothing left and nothing new that links;
8. `f8_vocabulary.py`: every word known to the collection or the document;
9. `f9_fluency.py`: not far less natural to the model than the input
   (run by the ranking, which has the model's losses).

`chain.py` runs 1-8 (`CandidateFilters`); the survivors are ranked by
`rewrite/ranking.py`.
"""
