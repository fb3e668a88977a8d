"""`deidentify`: Presidio on one document, its released record and spans."""
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, Iterator, List, Tuple

from .base import Stateful


@dataclass
class DeidentifyJob(Stateful):
    """`deidentify`: (output record, [[start, end], ...], language) per record."""

    model: str
    config: Dict[str, Any] = field(default_factory=dict)
    batch_size: int = 8

    def setup(self):
        if self._state is None:
            from ..deid.runner import load_pipeline

            self._state = load_pipeline(self.model, config=self.config)
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Tuple[Dict[str, Any], List[List[int]], str]]:
        from ..deid.runner import deidentified_record, deidentify_texts

        nlp = self.setup()
        records = list(records)
        results = deidentify_texts(nlp, (r.text for r in records), batch_size=self.batch_size,
                                   ids=(r.id for r in records))
        for rec, res in zip(records, results):
            yield (deidentified_record(rec, res), [[s.start, s.end] for s in res.spans],
                   res.report.get("language", "unknown"))
