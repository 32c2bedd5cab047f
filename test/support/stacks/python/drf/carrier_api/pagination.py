"""
The spec's paging (§Pagination): `page` and `size`, the totals in Total-Pages, Page-Size,
Page-Number and Total-Elements, the neighbours in a Link header (RFC 8288), the list itself as the
body. DRF's PageNumberPagination puts all of it into a body envelope instead; this keeps its page
arithmetic and links and moves them into headers.
"""
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param


class HeaderPageNumberPagination(PageNumberPagination):
    page_size = 10
    page_size_query_param = "size"
    # Larger sizes are capped; Page-Size says so (it is the paginator's per_page).
    max_page_size = 100

    def get_first_link(self):
        return remove_query_param(self.request.build_absolute_uri(), self.page_query_param)

    def get_last_link(self):
        return replace_query_param(self.request.build_absolute_uri(), self.page_query_param, self.page.paginator.num_pages)

    def get_paginated_response(self, data):
        paginator = self.page.paginator
        links = [(self.get_first_link(), "first"), (self.get_previous_link(), "prev"), (self.get_next_link(), "next"), (self.get_last_link(), "last")]
        headers = {
            "Total-Pages": str(paginator.num_pages),
            "Page-Size": str(paginator.per_page),
            "Page-Number": str(self.page.number),
            "Total-Elements": str(paginator.count),
        }
        link = ", ".join(f'<{url}>; rel="{rel}"' for url, rel in links if url)
        if link:
            headers["Link"] = link
        return Response(data, headers=headers)

    def get_paginated_response_schema(self, schema):
        return schema


class SizeIgnoringPagination(HeaderPageNumberPagination):
    """page_size_query_param left at DRF's default (None): `size` is ignored."""

    page_size_query_param = None


class BodyPageNumberPagination(PageNumberPagination):
    """DRF's PageNumberPagination as documented: {"count", "next", "previous", "results"}."""

    page_size = 10
    page_size_query_param = "size"
    max_page_size = 100
