"""The search API's record types follow the searchable specs: a label added to one list and not
the others would be embedded but not selectable (or the other way round)."""

from typing import get_args

from app.api.search.inputs import SearchRecordType
from app.api.search.outputs import SearchRecord
from app.retrieval.searchable import SEARCHABLE


def test_record_type_enum_matches_the_searchable_specs() -> None:
    assert {member.value for member in SearchRecordType} == set(SEARCHABLE)


def test_search_record_union_matches_the_searchable_specs() -> None:
    union = get_args(SearchRecord)[0]
    assert {member.__model__ for member in get_args(union)} == set(SEARCHABLE)
