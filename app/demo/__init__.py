"""The demo data generator (generator.py): a realistic home-services client built as rows in pure
Python (shapes, assets, publish, stages, vocab; its agents' memory: memory, episodes, lessons,
memory_vocab) and written in batched UNWIND transactions."""
